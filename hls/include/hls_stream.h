// cnnmap's stand-in for hls::stream<T>, used by the C simulation when the vendor's headers
// are absent. Written for cnnmap.
//
// Execution model of the C simulation. A DATAFLOW region runs each of its tasks in its own
// thread (cm_csim::dataflow, used through the CM_DATAFLOW_* macros of cnnmap_hls.h), as the
// hardware runs them concurrently. Streams are FIFOs shared by those threads:
//   - checking mode (the default): a stream whose depth was set (set_depth, which the
//     generated code calls next to its depth pragma) holds at most that many values; a write
//     to a full stream blocks until the reader makes room, a read from an empty stream blocks
//     until the writer delivers. A stream without a depth is unbounded.
//   - unbounded mode (environment CM_CSIM_UNBOUNDED=1, or cm_csim::set_checking(false)):
//     depths are ignored; the occupancy report then shows where a depth was too small.
//   - CM_CSIM_DEPTHS="s5=31,s16=8" replaces the depths of the streams named, so that a
//     depth can be tried without rebuilding (how cnnmap's tests probe the smallest one).
// Deadlock detection: all threads of a dataflow region share one lock. A thread about to wait
// on a stream counts itself blocked; whoever changes that stream uncounts its waiters before
// waking them. When every live task thread is blocked (or a thread outside any task reads an
// empty stream), no thread can ever make progress: the simulation prints every blocked
// (task, stream, direction, occupancy/depth) and aborts. The check is exact, not a timeout.
// Occupancy: every stream records its maximum occupancy; a stream's record is kept, by name,
// after the stream is destroyed, and cm_csim::print_occupancy() lists them all.
//
// Supported: stream(), stream(name), read(), read(T&), read_nb(T&), write(v), write_nb(v),
// >> and <<, empty(), full(), size(), set_depth(n), depth(), name(), max_occupancy().
// A task must not poll empty() in a loop (the detector cannot see a spinning thread).
#ifndef CM_COMPAT_HLS_STREAM_H
#define CM_COMPAT_HLS_STREAM_H

#define CM_HLS_COMPAT_STREAM 1

#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace cm_csim {

class stream_base;

struct occupancy_record {
  std::size_t depth = 0;          // 0: unbounded
  std::size_t max_occupancy = 0;  // largest number of values held at once
};

// State shared by all streams and dataflow regions of the process.
struct scheduler {
  std::mutex mu;
  int running = 0;  // participants that can make progress unless blocked on a stream
  int blocked = 0;  // participants waiting on a stream
  bool checking = true;
  std::vector<stream_base*> streams;
  std::map<std::string, occupancy_record> records;
  scheduler() {
    const char* e = std::getenv("CM_CSIM_UNBOUNDED");
    checking = !(e && e[0] == '1');
  }
};

inline scheduler& sched() {
  static scheduler s;
  return s;
}

// The name of the task the calling thread runs, or null outside any task.
inline const char*& current_task() {
  thread_local const char* t = nullptr;
  return t;
}

inline void set_checking(bool on) {
  std::lock_guard<std::mutex> g(sched().mu);
  sched().checking = on;
}

class stream_base {
 public:
  explicit stream_base(const char* name) : name_(name ? name : "") {
    std::lock_guard<std::mutex> g(sched().mu);
    if (name_.empty()) name_ = "stream" + std::to_string(sched().streams.size());
    sched().streams.push_back(this);
  }
  virtual ~stream_base() {
    std::lock_guard<std::mutex> g(sched().mu);
    scheduler& s = sched();
    for (std::size_t i = 0; i < s.streams.size(); i++)
      if (s.streams[i] == this) {
        s.streams.erase(s.streams.begin() + static_cast<long>(i));
        break;
      }
    occupancy_record& r = s.records[name_];
    r.depth = depth_;
    if (max_occ_ > r.max_occupancy) r.max_occupancy = max_occ_;
  }
  stream_base(const stream_base&) = delete;
  stream_base& operator=(const stream_base&) = delete;

  const char* name() const { return name_.c_str(); }
  std::size_t depth() const { return depth_; }  // read by its own stream's users only
  void set_depth(std::size_t d) {
    d = depth_override(d);
    std::lock_guard<std::mutex> g(sched().mu);
    depth_ = d;
  }
  std::size_t max_occupancy() const {
    std::lock_guard<std::mutex> g(sched().mu);
    return max_occ_;
  }

  // Called with the lock held.
  std::size_t max_occupancy_locked() const { return max_occ_; }
  virtual std::size_t count_locked() const = 0;
  void describe_locked(std::FILE* f) const {
    if (wait_r_ > 0)
      std::fprintf(f, "  task '%s' blocked reading stream '%s' (empty; depth %zu, max occupancy %zu)\n",
                   reader_ ? reader_ : "?", name_.c_str(), depth_, max_occ_);
    if (wait_w_ > 0)
      std::fprintf(f, "  task '%s' blocked writing stream '%s' (full: %zu of depth %zu)\n",
                   writer_ ? writer_ : "?", name_.c_str(), count_locked(), depth_);
  }

 protected:
  bool bounded_locked() const { return sched().checking && depth_ > 0; }
  // d, or this stream's entry "name=depth" in CM_CSIM_DEPTHS.
  std::size_t depth_override(std::size_t d) const {
    const char* list = std::getenv("CM_CSIM_DEPTHS");
    const std::size_t n = name_.size();
    for (const char* s = list; s && *s;) {
      if (std::strncmp(s, name_.c_str(), n) == 0 && s[n] == '=') return std::strtoul(s + n + 1, nullptr, 10);
      s = std::strchr(s, ',');
      if (s) s++;
    }
    return d;
  }

  // Waits (lock held through lk) until ready() holds; reading tells the direction.
  static const int kSpins = 16;
  template <class Ready> void wait_until(std::unique_lock<std::mutex>& lk, bool reading, Ready ready) {
    scheduler& s = sched();
    bool counted = false;
    int spins = 0;
    while (!ready()) {
      if (!current_task()) {
        // Outside a dataflow region nobody else can change the stream.
        std::fprintf(stderr, "cnnmap csim: %s stream '%s' outside a dataflow task would block forever (%s)\n",
                     reading ? "read from empty" : "write to full", name_.c_str(),
                     reading ? "empty" : "full");
        std::fflush(stderr);
        std::abort();
      }
      if (!counted && spins < kSpins) {
        // The other end is usually a running task a few words away: give it the core
        // (threads outnumber cores) before sleeping on the condition variable, which
        // costs two system calls per word on shallow FIFOs. A spinning task is not
        // counted as blocked, so deadlock detection stays exact: it blocks after kSpins.
        spins++;
        lk.unlock();
        std::this_thread::yield();
        lk.lock();
        continue;
      }
      if (!counted) {
        counted = true;
        s.blocked++;
        if (reading) {
          wait_r_++;
          reader_ = current_task();
        } else {
          wait_w_++;
          writer_ = current_task();
        }
        check_deadlock_locked();
      }
      unsigned long& epoch = reading ? epoch_r_ : epoch_w_;
      const unsigned long seen = epoch;
      (reading ? cv_r_ : cv_w_).wait(lk);
      if (epoch != seen) counted = false;  // the thread that woke us uncounted us
    }
    if (counted) {  // defensive: leave the counts consistent
      s.blocked--;
      if (reading) wait_r_--; else wait_w_--;
    }
  }
  // Wakes the waiters of one direction after a change, uncounting them first.
  void wake_locked(bool readers) {
    int& n = readers ? wait_r_ : wait_w_;
    if (n == 0) return;
    sched().blocked -= n;
    n = 0;
    (readers ? epoch_r_ : epoch_w_)++;
    (readers ? cv_r_ : cv_w_).notify_all();
  }
  void note_occupancy_locked(std::size_t n) {
    if (n > max_occ_) max_occ_ = n;
  }

 public:
  static void check_deadlock_locked() {
    scheduler& s = sched();
    if (s.running <= 0 || s.blocked < s.running) return;
    std::fprintf(stderr, "cnnmap csim: deadlock: all %d dataflow tasks are blocked on streams:\n", s.running);
    for (const stream_base* st : s.streams) st->describe_locked(stderr);
    std::fflush(stderr);
    std::abort();
  }

 private:
  std::string name_;
  std::size_t depth_ = 0;
  std::size_t max_occ_ = 0;
  int wait_r_ = 0, wait_w_ = 0;
  unsigned long epoch_r_ = 0, epoch_w_ = 0;
  const char* reader_ = nullptr;
  const char* writer_ = nullptr;
  std::condition_variable cv_r_, cv_w_;
};

// Prints the occupancy record of every stream seen so far (live or destroyed).
inline void print_occupancy(std::FILE* f) {
  std::lock_guard<std::mutex> g(sched().mu);
  std::map<std::string, occupancy_record> all = sched().records;
  for (const stream_base* st : sched().streams) {
    occupancy_record& r = all[st->name()];
    r.depth = st->depth();
    if (st->max_occupancy_locked() > r.max_occupancy) r.max_occupancy = st->max_occupancy_locked();
  }
  std::fprintf(f, "%-32s %10s %14s\n", "stream", "depth", "max occupancy");
  for (const auto& kv : all) {
    const bool over = kv.second.depth > 0 && kv.second.max_occupancy > kv.second.depth;
    std::fprintf(f, "%-32s %10zu %14zu%s\n", kv.first.c_str(), kv.second.depth, kv.second.max_occupancy,
                 over ? "  exceeds depth" : "");
  }
}

// The occupancy record of a destroyed stream (depth 0 and occupancy 0 when unknown).
inline occupancy_record occupancy_of(const std::string& name) {
  std::lock_guard<std::mutex> g(sched().mu);
  auto it = sched().records.find(name);
  return it == sched().records.end() ? occupancy_record() : it->second;
}

// A DATAFLOW region: task(name, f) starts f in a thread; join() (or the destructor) waits
// for all. While the region is being built its creator counts as a participant, so a task
// blocked on a stream whose other end is not started yet is not taken for a deadlock.
class dataflow {
 public:
  explicit dataflow(const char* name) : name_(name) {
    std::lock_guard<std::mutex> g(sched().mu);
    if (!current_task()) sched().running++;  // a task creating a nested region already counts
  }
  ~dataflow() { join(); }
  dataflow(const dataflow&) = delete;
  dataflow& operator=(const dataflow&) = delete;

  template <class F> void task(const char* name, F&& f) {
    {
      std::lock_guard<std::mutex> g(sched().mu);
      sched().running++;
    }
    threads_.emplace_back([name, fn = std::forward<F>(f)]() mutable {
      current_task() = name;
      fn();
      std::lock_guard<std::mutex> g(sched().mu);
      sched().running--;
      stream_base::check_deadlock_locked();
    });
  }

  void join() {
    if (joined_) return;
    joined_ = true;
    {
      std::lock_guard<std::mutex> g(sched().mu);
      sched().running--;  // the creator now only waits for its tasks
      stream_base::check_deadlock_locked();
    }
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    if (current_task()) {
      std::lock_guard<std::mutex> g(sched().mu);
      sched().running++;
    }
  }
  const char* name() const { return name_; }

 private:
  const char* name_;
  std::vector<std::thread> threads_;
  bool joined_ = false;
};

}  // namespace cm_csim

namespace hls {

template <class T> class stream : public cm_csim::stream_base {
 public:
  stream() : stream_base(nullptr) {}
  explicit stream(const char* name) : stream_base(name) {}
  stream(const char* name, std::size_t depth) : stream_base(name) { set_depth(depth); }

  void write(const T& v) {
    std::unique_lock<std::mutex> lk(cm_csim::sched().mu);
    wait_until(lk, false, [&] { return !bounded_locked() || q_.size() < depth(); });
    q_.push_back(v);
    note_occupancy_locked(q_.size());
    wake_locked(true);
  }
  T read() {
    std::unique_lock<std::mutex> lk(cm_csim::sched().mu);
    wait_until(lk, true, [&] { return !q_.empty(); });
    T v = q_.front();
    q_.pop_front();
    wake_locked(false);
    return v;
  }
  void read(T& v) { v = read(); }
  bool read_nb(T& v) {
    std::lock_guard<std::mutex> g(cm_csim::sched().mu);
    if (q_.empty()) return false;
    v = q_.front();
    q_.pop_front();
    wake_locked(false);
    return true;
  }
  bool write_nb(const T& v) {
    std::lock_guard<std::mutex> g(cm_csim::sched().mu);
    if (bounded_locked() && q_.size() >= depth()) return false;
    q_.push_back(v);
    note_occupancy_locked(q_.size());
    wake_locked(true);
    return true;
  }
  stream& operator<<(const T& v) {
    write(v);
    return *this;
  }
  stream& operator>>(T& v) {
    v = read();
    return *this;
  }
  bool empty() const {
    std::lock_guard<std::mutex> g(cm_csim::sched().mu);
    return q_.empty();
  }
  bool full() const {
    std::lock_guard<std::mutex> g(cm_csim::sched().mu);
    return bounded_locked() && q_.size() >= depth();
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> g(cm_csim::sched().mu);
    return q_.size();
  }
  std::size_t count_locked() const override { return q_.size(); }

 private:
  std::deque<T> q_;
};

}  // namespace hls

#endif
