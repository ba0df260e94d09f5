// The processes of one `mgsim sweep` under mpirun (OpenMPI): rank 0 writes the outputs, every
// rank runs its share of the points. Built without MPI (MGSIM_MPI off), or not started by
// mpirun, it is one process of rank 0.
//
// Contract: MPI is initialised with MPI_THREAD_FUNNELED: only the thread that made the Cluster
// calls its members. Messages are strings; receive() takes the next from any rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mgsim::cli {

class Cluster {
 public:
  // ConfigError when started by mpirun with more than one process but built without MPI (each
  // process would run the whole sweep and write the same files).
  Cluster();
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Rank 0's `v` to every rank (every rank calls it).
  void broadcast(std::vector<std::int64_t>& v) const;
  // REQUIRES: size() > 1.
  void send_to_root(const std::string& message) const;
  std::string receive() const;
  // Ends every process of the run with `code` (after this one printed why).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialised_ = false;
};

}  // namespace mgsim::cli
