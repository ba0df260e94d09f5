#include "cli/cluster.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/config.hpp"

#ifdef MGSIM_MPI
#include <mpi.h>
#endif

namespace mgsim::cli {

namespace {

// The number of processes mpirun (OpenMPI, or a PMI launcher) started, 1 when none.
int launched_processes() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(var)) return std::max(1, std::atoi(v));
  return 1;
}

}  // namespace

#ifdef MGSIM_MPI

Cluster::Cluster() {
  if (launched_processes() == 1) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Cluster::~Cluster() {
  if (initialised_) MPI_Finalize();
}

void Cluster::broadcast(std::vector<std::int64_t>& v) const {
  if (size_ == 1) return;
  auto n = static_cast<std::int64_t>(v.size());
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  v.resize(static_cast<std::size_t>(n));
  MPI_Bcast(v.data(), static_cast<int>(n), MPI_INT64_T, 0, MPI_COMM_WORLD);
}

void Cluster::send_to_root(const std::string& message) const {
  MGSIM_CHECK(size_ > 1, "a message to rank 0 from rank 0");
  MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
}

std::string Cluster::receive() const {
  MGSIM_CHECK(size_ > 1, "a message received with no other rank");
  MPI_Status status;
  MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string message(static_cast<std::size_t>(count), '\0');
  MPI_Recv(message.data(), count, MPI_CHAR, status.MPI_SOURCE, 0, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return message;
}

void Cluster::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);  // MPI_Abort does not return
}

#else

Cluster::Cluster() {
  if (const int n = launched_processes(); n > 1)
    throw sim::ConfigError({"mpirun", 0, 0},
                           fmt::format("{} processes, but this mgsim was built without MPI "
                                       "(configure with -DMGSIM_MPI=ON and OpenMPI installed)",
                                       n));
}

Cluster::~Cluster() = default;

void Cluster::broadcast(std::vector<std::int64_t>& /*v*/) const {}

void Cluster::send_to_root(const std::string& /*message*/) const {
  MGSIM_CHECK(false, "no MPI: one process");
}

std::string Cluster::receive() const {
  MGSIM_CHECK(false, "no MPI: one process");
  return {};
}

void Cluster::abort(int code) const { std::exit(code); }

#endif

}  // namespace mgsim::cli
