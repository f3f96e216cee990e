// cli/huge_pages.hpp — the process's large arrays on transparent huge pages. A held schedule
// on 16,384 ranks is gigabytes of arrays indexed by transfer, read in event order: with 4 KiB
// pages nearly every access misses the TLB and every first touch faults. glibc's malloc puts
// its memory on huge pages when asked (the tunable glibc.malloc.hugetlb=1, an madvise on the
// kernel's "madvise" THP setting), but reads that tunable only from the environment at
// start: so collsim (predict and check, cli/main.cpp) starts itself again, once, with it
// set, and then gives the caller's GLIBC_TUNABLES back, so that the programs it starts
// (mpirun, the MPI workers whose times validate measures) run as the caller would run them.
// Measured in docs/performance.md.
#pragma once

namespace collsim::cli {

// Returns only where it does not restart: in the restarted process (which then restores the
// caller's GLIBC_TUNABLES), where the user set the tunable (GLIBC_TUNABLES naming
// glibc.malloc.hugetlb is left as it is), where COLLSIM_HUGE_PAGES=0 turns it off, or where
// the restart failed (collsim then runs as it is, on 4 KiB pages).
void restart_with_huge_pages(char** argv);

}  // namespace collsim::cli
