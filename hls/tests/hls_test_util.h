// Small helpers shared by cnnmap's HLS template tests: a check macro that counts failures,
// a seeded random generator, and running a function in a child process to observe an abort.
#ifndef CM_HLS_TEST_UTIL_H
#define CM_HLS_TEST_UTIL_H

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>

static int g_failures = 0;
static int g_checks = 0;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    g_checks++;                                                                       \
    if (!(cond)) {                                                                    \
      g_failures++;                                                                   \
      if (g_failures < 30) std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                                 \
  } while (0)

#define CHECK_MSG(cond, ...)                                                          \
  do {                                                                                \
    g_checks++;                                                                       \
    if (!(cond)) {                                                                    \
      g_failures++;                                                                   \
      if (g_failures < 30) {                                                          \
        std::fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);  \
        std::fprintf(stderr, __VA_ARGS__);                                            \
        std::fprintf(stderr, "\n");                                                   \
      }                                                                               \
    }                                                                                 \
  } while (0)

inline std::mt19937_64& rng() {
  static std::mt19937_64 r(20261123);
  return r;
}
inline long long rand_range(long long lo, long long hi) {  // inclusive
  return lo + static_cast<long long>(rng()() % static_cast<unsigned long long>(hi - lo + 1));
}

struct child_result {
  int exited_normally;  // 1 when the child returned exit status 0
  int status;
  std::string err;      // everything the child wrote to stderr
};

// Runs f in a forked child with stderr captured; the child exits 0 when f returns.
inline child_result run_in_child(const std::function<void()>& f) {
  child_result r{0, 0, std::string()};
  int fd[2];
  if (pipe(fd) != 0) {
    std::perror("pipe");
    std::exit(2);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 2);
    close(fd[1]);
    f();
    std::fflush(stderr);
    _exit(0);
  }
  close(fd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) r.err.append(buf, static_cast<size_t>(n));
  close(fd[0]);
  waitpid(pid, &r.status, 0);
  r.exited_normally = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
  return r;
}

inline int finish(const char* name) {
  std::printf("%s: %d checks, %d failures\n", name, g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}

#endif
