// Tests of cnnmap's hls::stream compatibility header and its threaded dataflow execution:
// bounded blocking between two task threads, maximum occupancy records, the unbounded mode,
// no false alarm on long chains of depth-1 FIFOs, nested regions, and the deadlock detector
// (run in child processes) naming the blocked streams.
#include <chrono>
#include <cstring>
#include <thread>

#include "cnnmap_hls.h"
#include "hls_test_util.h"

static bool contains(const std::string& s, const char* sub) { return s.find(sub) != std::string::npos; }

static void producer(hls::stream<int>& s, int n) {
  for (int i = 0; i < n; i++) s.write(i);
}
static void slow_consumer(hls::stream<int>& s, int n, int* bad) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the producer fill the FIFO
  for (int i = 0; i < n; i++)
    if (s.read() != i) (*bad)++;
}

static void test_bounded_pair() {
  int bad = 0;
  std::size_t maxocc = 0;
  {
    hls::stream<int> s("pair_fifo");
    CM_STREAM_DEPTH(s, 4);
    CM_DATAFLOW_BEGIN(pair)
    CM_TASK(prod, producer(s, 1000));
    CM_TASK(cons, slow_consumer(s, 1000, &bad));
    CM_DATAFLOW_END()
    maxocc = s.max_occupancy();
    CHECK(s.empty());
  }
  CHECK(bad == 0);
  CHECK_MSG(maxocc == 4, "max occupancy %zu", maxocc);
  const cm_csim::occupancy_record r = cm_csim::occupancy_of("pair_fifo");
  CHECK(r.depth == 4 && r.max_occupancy == 4);
}

static void test_unbounded_mode() {
  cm_csim::set_checking(false);
  int bad = 0;
  {
    hls::stream<int> s("loose_fifo");
    CM_STREAM_DEPTH(s, 4);
    CM_DATAFLOW_BEGIN(loose)
    CM_TASK(prod, producer(s, 500));
    CM_TASK(cons, slow_consumer(s, 500, &bad));
    CM_DATAFLOW_END()
  }
  cm_csim::set_checking(true);
  CHECK(bad == 0);
  const cm_csim::occupancy_record r = cm_csim::occupancy_of("loose_fifo");
  CHECK_MSG(r.max_occupancy > 4, "max occupancy %zu", r.max_occupancy);
  std::FILE* f = std::tmpfile();
  cm_csim::print_occupancy(f);
  std::rewind(f);
  std::string text;
  char line[256];
  while (std::fgets(line, sizeof line, f)) text += line;
  std::fclose(f);
  CHECK(contains(text, "loose_fifo") && contains(text, "exceeds depth"));
}

// A chain of tasks joined by depth-1 FIFOs, started in reverse order: no false deadlock.
static void relay(hls::stream<int>& in, hls::stream<int>& out, int n) {
  for (int i = 0; i < n; i++) out.write(in.read() + 1);
}
static void test_chain() {
  for (int rep = 0; rep < 20; rep++) {
    hls::stream<int> s[9];
    for (auto& x : s) CM_STREAM_DEPTH(x, 1);
    long sum = 0;
    {
      cm_csim::dataflow df("chain");  // the region object CM_DATAFLOW_BEGIN makes, used directly
      for (int k = 7; k >= 0; k--) df.task("relay", [&s, k] { relay(s[k], s[k + 1], 200); });
      df.task("src", [&s] { producer(s[0], 200); });
      df.task("sink", [&s, &sum] { for (int i = 0; i < 200; i++) sum += s[8].read(); });
      df.join();
    }
    CHECK(sum == 200L * 199 / 2 + 200L * 8);
  }
}

// A task that itself runs a dataflow region.
static void inner_region(hls::stream<int>& in, hls::stream<int>& out) {
  hls::stream<int> mid("inner_mid");
  CM_STREAM_DEPTH(mid, 2);
  CM_DATAFLOW_BEGIN(inner)
  CM_TASK(a, relay(in, mid, 100));
  CM_TASK(b, relay(mid, out, 100));
  CM_DATAFLOW_END()
}
static void test_nested() {
  hls::stream<int> a("outer_a"), b("outer_b");
  CM_STREAM_DEPTH(a, 2);
  CM_STREAM_DEPTH(b, 2);
  long sum = 0;
  CM_DATAFLOW_BEGIN(outer)
  CM_TASK(src, producer(a, 100));
  CM_TASK(mid, inner_region(a, b));
  CM_TASK(sink, for (int i = 0; i < 100; i++) sum += b.read());
  CM_DATAFLOW_END()
  CHECK(sum == 100L * 99 / 2 + 200);
}

// Deadlock: the writer fills s1 (too small) before writing s2, the reader wants s2 first.
static void crossed() {
  hls::stream<int> s1("crossed_s1"), s2("crossed_s2");
  CM_STREAM_DEPTH(s1, 2);
  CM_STREAM_DEPTH(s2, 2);
  CM_DATAFLOW_BEGIN(crossed)
  CM_TASK(writer, for (int i = 0; i < 10; i++) s1.write(i); for (int i = 0; i < 10; i++) s2.write(i));
  CM_TASK(reader, for (int i = 0; i < 10; i++) (void)s2.read(); for (int i = 0; i < 10; i++) (void)s1.read());
  CM_DATAFLOW_END()
}
// The same with depths that suffice.
static void crossed_ok() {
  hls::stream<int> s1("crossed_s1"), s2("crossed_s2");
  CM_STREAM_DEPTH(s1, 10);
  CM_STREAM_DEPTH(s2, 2);
  CM_DATAFLOW_BEGIN(crossed)
  CM_TASK(writer, for (int i = 0; i < 10; i++) s1.write(i); for (int i = 0; i < 10; i++) s2.write(i));
  CM_TASK(reader, for (int i = 0; i < 10; i++) (void)s2.read(); for (int i = 0; i < 10; i++) (void)s1.read());
  CM_DATAFLOW_END()
}
// A read that would block forever after its writer has finished.
static void starved() {
  hls::stream<int> s("starved_fifo");
  CM_STREAM_DEPTH(s, 8);
  CM_DATAFLOW_BEGIN(starved)
  CM_TASK(writer, producer(s, 3));
  CM_TASK(reader, for (int i = 0; i < 4; i++) (void)s.read());
  CM_DATAFLOW_END()
}
static void empty_outside() {
  hls::stream<int> s("lonely_fifo");
  (void)s.read();
}

static void test_deadlocks() {
  child_result r = run_in_child(crossed);
  CHECK(!r.exited_normally);
  CHECK_MSG(contains(r.err, "deadlock") && contains(r.err, "crossed_s1") && contains(r.err, "crossed_s2"),
            "stderr: %s", r.err.c_str());
  CHECK(contains(r.err, "task 'writer' blocked writing stream 'crossed_s1'"));
  CHECK(contains(r.err, "task 'reader' blocked reading stream 'crossed_s2'"));

  r = run_in_child(crossed_ok);
  CHECK_MSG(r.exited_normally, "stderr: %s", r.err.c_str());

  r = run_in_child(starved);
  CHECK(!r.exited_normally);
  CHECK_MSG(contains(r.err, "task 'reader' blocked reading stream 'starved_fifo'"), "stderr: %s", r.err.c_str());

  r = run_in_child(empty_outside);
  CHECK(!r.exited_normally);
  CHECK_MSG(contains(r.err, "lonely_fifo"), "stderr: %s", r.err.c_str());
}

static void test_plain_ops() {
  hls::stream<int> s("plain");
  CHECK(s.empty() && s.size() == 0 && std::strcmp(s.name(), "plain") == 0);
  s << 5;
  s.write(6);
  int v = 0;
  s >> v;
  CHECK(v == 5 && s.size() == 1);
  CHECK(s.read_nb(v) && v == 6);
  CHECK(!s.read_nb(v));
  s.set_depth(1);
  CHECK(s.write_nb(7) && s.full() && !s.write_nb(8));
  CHECK(s.read() == 7);
}

int main() {
  test_plain_ops();
  test_bounded_pair();
  test_unbounded_mode();
  test_chain();
  test_nested();
  test_deadlocks();
  return finish("hls_stream");
}
