// Runs f() in a forked child whose address space (RLIMIT_AS) is what it maps at the fork plus
// `room` bytes, and returns the string f() returned ("no limit set" when the limit could not be
// set; "no pipe" / "no fork" when the child could not be made).  The child's limit does not bind
// this process.  For tests of reservations that do not fit (settings too large for the address
// space); not under the sanitizers, whose shadow memory and RLIMIT_AS do not mix.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <string>

namespace wt {

template <class F>
std::string in_child_with_address_room(std::size_t room, F f) {
  int fds[2];
  if (::pipe(fds) != 0) return "no pipe";
  const pid_t pid = ::fork();
  if (pid < 0) return "no fork";
  if (pid == 0) {
    ::close(fds[0]);
    std::size_t vm_kib = 0;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmSize:", 0) == 0) vm_kib = std::stoull(line.substr(7));
    const rlimit lim{(vm_kib << 10) + room, (vm_kib << 10) + room};
    const std::string what = vm_kib != 0 && ::setrlimit(RLIMIT_AS, &lim) == 0 ? f() : "no limit set";
    (void)!::write(fds[1], what.data(), what.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string what;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) what.append(buf, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return what;
}

}  // namespace wt
