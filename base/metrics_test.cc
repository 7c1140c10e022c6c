// The metrics registry (base/metrics.h): the text it renders, exactly and as the reference
// parser (python3-prometheus-client, through scripts/prom-parse.py) reads it; histograms,
// escaping, collectors, the process collectors, misuse, and counts under real threads.
#include "base/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/process_metrics.h"

namespace gatehouse::metrics {
namespace {

using ::testing::HasSubstr;

TEST(MetricsTest, CountersAndGaugesRenderInNameThenLabelOrder) {
  Registry r;
  auto& deliveries = r.AddCounter("gatehouse_webhook_deliveries_total", "Webhook deliveries.",
                                  {"event", "outcome"});
  auto& flight = r.AddGauge("gatehouse_inbox_in_flight", "Deliveries not yet terminal.");
  deliveries.With({"push", "accepted"}).Inc(2);
  deliveries.With({"check_run", "rejected"}).Inc();
  flight.With({}).Set(7);
  EXPECT_EQ(r.Render(),
            "# HELP gatehouse_inbox_in_flight Deliveries not yet terminal.\n"
            "# TYPE gatehouse_inbox_in_flight gauge\n"
            "gatehouse_inbox_in_flight 7\n"
            "# HELP gatehouse_webhook_deliveries_total Webhook deliveries.\n"
            "# TYPE gatehouse_webhook_deliveries_total counter\n"
            "gatehouse_webhook_deliveries_total{event=\"check_run\",outcome=\"rejected\"} 1\n"
            "gatehouse_webhook_deliveries_total{event=\"push\",outcome=\"accepted\"} 2\n");
  // The same series again is the same object.
  EXPECT_EQ(&deliveries.With({"push", "accepted"}), &deliveries.With({"push", "accepted"}));
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithSumAndCount) {
  Registry r;
  auto& h = r.AddHistogram("gatehouse_pass_duration_seconds", "Pass durations.", {"outcome"},
                           {0.1, 1});
  Histogram& done = h.With({"done"});
  for (double v : {0.05, 0.1, 0.5, 3.0}) done.Observe(v);
  EXPECT_EQ(r.Render(),
            "# HELP gatehouse_pass_duration_seconds Pass durations.\n"
            "# TYPE gatehouse_pass_duration_seconds histogram\n"
            "gatehouse_pass_duration_seconds_bucket{outcome=\"done\",le=\"0.1\"} 2\n"
            "gatehouse_pass_duration_seconds_bucket{outcome=\"done\",le=\"1\"} 3\n"
            "gatehouse_pass_duration_seconds_bucket{outcome=\"done\",le=\"+Inf\"} 4\n"
            "gatehouse_pass_duration_seconds_sum{outcome=\"done\"} 3.65\n"
            "gatehouse_pass_duration_seconds_count{outcome=\"done\"} 4\n");
}

TEST(MetricsTest, ValuesAndTextAreEscapedAsTheFormatSays) {
  EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(EscapeHelp("a\\b\"c\nd"), "a\\\\b\"c\\nd");
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(-3), "-3");
  EXPECT_EQ(FormatValue(1e18), "1e+18");
  EXPECT_EQ(FormatValue(0.25), "0.25");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(std::nan("")), "NaN");
}

TEST(MetricsTest, CollectorsAreReadAtEachRenderAndSorted) {
  Registry r;
  int calls = 0;
  r.AddCollector("gatehouse_work_items", "Work items by state.", "gauge", {"state"}, [&] {
    ++calls;
    return std::vector<Sample>{{{"pending"}, 3}, {{"dead"}, static_cast<double>(calls)}};
  });
  EXPECT_THAT(r.Render(), HasSubstr("gatehouse_work_items{state=\"dead\"} 1\n"
                                    "gatehouse_work_items{state=\"pending\"} 3\n"));
  EXPECT_THAT(r.Render(), HasSubstr("gatehouse_work_items{state=\"dead\"} 2\n"));
}

TEST(MetricsTest, ProcessCollectorsReportThisProcess) {
  Registry r;
  AddProcessCollectors(r);
  const std::string text = r.Render();
  for (const char* name : {"process_resident_memory_bytes", "process_virtual_memory_bytes",
                           "process_open_fds", "process_cpu_seconds_total"}) {
    EXPECT_THAT(text, HasSubstr(std::string("\n") + name + " ")) << text;
  }
  // stdin, stdout and stderr at least; and some resident memory.
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("process_open_fds ", 0) == 0) {
      EXPECT_GE(std::stod(line.substr(17)), 3);
    }
    if (line.rfind("process_resident_memory_bytes ", 0) == 0) {
      EXPECT_GT(std::stod(line.substr(30)), 1e6);
    }
  }
}

TEST(MetricsTest, MisuseIsAProgrammingErrorThatAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Registry r;
  auto& c = r.AddCounter("gatehouse_x_total", "x", {"kind"});
  EXPECT_DEATH(r.AddCounter("gatehouse_x_total", "again"), "a second family");
  EXPECT_DEATH(r.AddGauge("9lives", "bad"), "invalid metric name");
  EXPECT_DEATH(r.AddGauge("gatehouse_y", "bad", {"__reserved"}), "invalid label name");
  EXPECT_DEATH(r.AddHistogram("gatehouse_z_seconds", "bad", {"le"}, {1}), "invalid label name");
  EXPECT_DEATH(r.AddHistogram("gatehouse_w_seconds", "bad", {}, {2, 1}), "ascend");
  EXPECT_DEATH(c.With({"a", "b"}), "2 label values for 1 labels");
}

TEST(MetricsTest, ConcurrentUpdatesAreAllCounted) {
  Registry r;
  auto& c = r.AddCounter("gatehouse_n_total", "n", {"thread"});
  auto& h = r.AddHistogram("gatehouse_d_seconds", "d", {}, {0.5});
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      Counter& mine = c.With({t % 2 == 0 ? "even" : "odd"});
      for (int i = 0; i < 10000; ++i) {
        mine.Inc();
        h.With({}).Observe(i % 2 == 0 ? 0.25 : 1.0);
        if (i % 1000 == 0) (void)r.Render();  // a scrape in the middle
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.With({"even"}).Value() + c.With({"odd"}).Value(), 80000);
  const Histogram::Snapshot s = h.With({}).Take();
  EXPECT_EQ(s.count, 80000);
  EXPECT_EQ(s.cumulative[0], 40000);
  EXPECT_DOUBLE_EQ(s.sum, 40000 * 0.25 + 40000 * 1.0);
}

// The reference parser reads what Render writes: every sample with its labels and value,
// escapes included.
TEST(MetricsTest, TheReferenceParserReadsTheExposition) {
  Registry r;
  auto& c = r.AddCounter("gatehouse_github_requests_total", "GitHub requests.\nBy endpoint.",
                         {"endpoint", "status"});
  c.With({"GET /repos/{o}/{r}/pulls/{n}", "304"}).Inc(5);
  c.With({"odd \"quoted\" \\ value\nnewline", "200"}).Inc();
  auto& h = r.AddHistogram("gatehouse_signal_latency_seconds", "Signal to pass start.", {},
                           LatencyBounds());
  h.With({}).Observe(0.02);
  r.AddGauge("gatehouse_rate_limit_remaining", "Remaining.", {"installation"})
      .With({"42"})
      .Set(4999);
  AddProcessCollectors(r);

  const std::string file = ::testing::TempDir() + "metrics_test.prom";
  {
    std::ofstream out(file);
    out << r.Render();
  }
  const std::string command =
      std::string("/usr/bin/python3 ") + GATEHOUSE_SOURCE_DIR "/scripts/prom-parse.py " + file;
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string parsed;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) parsed.append(buf, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "scripts/prom-parse.py failed (is python3-prometheus-client installed? "
         "scripts/install-deps.sh installs it):\n"
      << parsed;
  EXPECT_THAT(parsed, HasSubstr("counter gatehouse_github_requests_total{endpoint=\"GET "
                                "/repos/{o}/{r}/pulls/{n}\",status=\"304\"} 5.0\n"));
  EXPECT_THAT(parsed, HasSubstr("counter gatehouse_github_requests_total{endpoint=\"odd \"quoted\" \\ "
                                "value\nnewline\",status=\"200\"} 1.0\n"));
  EXPECT_THAT(parsed, HasSubstr("histogram gatehouse_signal_latency_seconds_bucket{le=\"0.025\"} "
                                "1.0\n"));
  EXPECT_THAT(parsed, HasSubstr("histogram gatehouse_signal_latency_seconds_bucket{le=\"0.01\"} "
                                "0.0\n"));
  EXPECT_THAT(parsed, HasSubstr("histogram gatehouse_signal_latency_seconds_count{} 1.0\n"));
  EXPECT_THAT(parsed,
              HasSubstr("gauge gatehouse_rate_limit_remaining{installation=\"42\"} 4999.0\n"));
  EXPECT_THAT(parsed, HasSubstr("gauge process_open_fds{} "));
}

}  // namespace
}  // namespace gatehouse::metrics
