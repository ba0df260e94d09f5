#include <iostream>

int main() {
  std::cout << "mgsim\n";
  return 0;
}
