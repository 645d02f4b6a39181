// The HTML leaderboard in a real browser: headless Chromium (Debian `chromium`) loads the page
// `unieval table --format html` wrote, the test reads the rendered DOM (rows, values), sorts by
// clicking a column header (a real mouse event at the header's position), checks that a
// phone-width screen needs no sideways page scroll, and saves screenshots under the build folder
// (BUILD/test-artifacts/leaderboard-*.png). Skips with a message where chromium is absent.
//
// Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: requests on
// its fd 3, replies on fd 4, NUL-terminated JSON), so nothing listens on a port and nothing is
// downloaded: no driver, no npm.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/leaderboard_fixture.h"
#include "tests/test_util.h"

namespace {

using nlohmann::json;
using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;

std::string base64_decode(const std::string& in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0;
  uint32_t acc =
      0;  // only the low `bits` bits matter; unsigned, so old bits shift out (int overflowed: UBSan)
  for (char c : in) {
    int v = val(c);
    if (v < 0) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// One headless Chromium, driven over --remote-debugging-pipe.
class Browser {
 public:
  Browser(const std::string& user_data_dir, const std::string& log_path) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      // fd 3: the browser reads requests; fd 4: it writes replies.
      int in = dup(to_child[0]), out = dup(from_child[1]);
      dup2(in, 3);
      dup2(out, 4);
      int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
      }
      for (int fd = 5; fd < 256; ++fd) close(fd);
      std::string udd = "--user-data-dir=" + user_data_dir;
      execlp("chromium", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-extensions",
             "--hide-scrollbars", "--remote-debugging-pipe", udd.c_str(), "about:blank",
             static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    to_ = to_child[1];
    from_ = from_child[0];
  }
  ~Browser() {
    try {
      if (alive_) send("Browser.close", json::object(), "", /*wait=*/false);
    } catch (...) {
    }
    close(to_);
    close(from_);
    for (int i = 0; i < 50; ++i) {
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }

  // Sends a command and returns its "result" (throws on an error reply or after 30 s).
  json send(const std::string& method, const json& params, const std::string& session = "",
            bool wait = true) {
    const int id = next_id_++;
    json msg = {{"id", id}, {"method", method}, {"params", params}};
    if (!session.empty()) msg["sessionId"] = session;
    std::string text = msg.dump();
    text.push_back('\0');
    for (size_t off = 0; off < text.size();) {
      ssize_t n = write(to_, text.data() + off, text.size() - off);
      if (n <= 0) throw std::runtime_error("chromium closed its pipe (" + method + ")");
      off += static_cast<size_t>(n);
    }
    if (!wait) return json();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      size_t nul = buf_.find('\0');
      if (nul != std::string::npos) {
        json reply = json::parse(buf_.substr(0, nul));
        buf_.erase(0, nul + 1);
        if (reply.contains("id") && reply["id"] == id) {
          if (reply.contains("error"))
            throw std::runtime_error(method + ": " + reply["error"].dump());
          return reply["result"];
        }
        continue;  // an event, or a reply to a command sent without waiting
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw std::runtime_error("no reply to " + method + " within 30 s");
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[65536];
      ssize_t n = read(from_, chunk, sizeof chunk);
      if (n <= 0) {
        alive_ = false;
        throw std::runtime_error("chromium exited (" + method + ")");
      }
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  int next_id_ = 1;
  bool alive_ = true;
  std::string buf_;
};

// A page of the browser: evaluate script, click, screenshot.
class Page {
 public:
  Page(Browser& b, const std::string& url) : b_(b) {
    std::string target = b_.send("Target.createTarget", {{"url", "about:blank"}})["targetId"];
    session_ =
        b_.send("Target.attachToTarget", {{"targetId", target}, {"flatten", true}})["sessionId"];
    b_.send("Page.enable", json::object(), session_);
    b_.send("Runtime.enable", json::object(), session_);
    resize(390, 844, true);
    b_.send("Page.navigate", {{"url", url}}, session_);
    for (int i = 0; i < 300 && eval("document.readyState") != "complete"; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  void resize(int width, int height, bool mobile) {
    b_.send("Emulation.setDeviceMetricsOverride",
            {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", mobile}},
            session_);
  }
  json eval(const std::string& expression) {
    json r = b_.send("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}},
                     session_);
    if (r.contains("exceptionDetails"))
      throw std::runtime_error("script failed: " + r["exceptionDetails"].dump());
    return r["result"].value("value", json());
  }
  // A real left click at the centre of the element (scrolled into view first).
  void click(const std::string& selector) {
    json rect =
        eval("(function(){var e=document.querySelector(" + json(selector).dump() +
             ");e.scrollIntoView({block:'center',inline:'center'});var r=e.getBoundingClientRect();"
             "return {x:r.left+r.width/2,y:r.top+r.height/2};})()");
    for (const char* type : {"mousePressed", "mouseReleased"})
      b_.send("Input.dispatchMouseEvent",
              {{"type", type},
               {"x", rect["x"]},
               {"y", rect["y"]},
               {"button", "left"},
               {"clickCount", 1}},
              session_);
  }
  void screenshot(const std::string& path, bool full_page) {
    json params = {{"format", "png"}};
    if (full_page) params["captureBeyondViewport"] = true;
    std::string png = base64_decode(b_.send("Page.captureScreenshot", params, session_)["data"]);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << png;
  }

 private:
  Browser& b_;
  std::string session_;
};

TEST(BrowserTest, LeaderboardRendersSortsAndFitsAPhone) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    GTEST_SKIP()
        << "chromium absent (Debian package chromium, installed by ci/setup): browser test skipped";
  TempDir tmp;
  auto runs = unieval::testing::write_fixture_runs(tmp);
  const std::string page_path = (tmp.path() / "leaderboard.html").string();
  auto r = run_cli("table --format html --out " + shq(page_path) + " " + shq(runs[0].path) + " " +
                   shq(runs[1].path) + " " + shq(runs[2].path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::filesystem::path artifacts =
      std::filesystem::path(UNIEVAL_BINARY).parent_path() / "test-artifacts";

  Browser browser((tmp.path() / "chromium-profile").string(),
                  (tmp.path() / "chromium.log").string());
  Page page(browser, "file://" + page_path);
  ASSERT_EQ(page.eval("document.readyState"), "complete");
  EXPECT_EQ(page.eval("document.title"), "unieval leaderboard");

  // Rows: our three systems (best exact first) and UniLM Table 5/9's published rows.
  EXPECT_EQ(page.eval("document.querySelectorAll('table.lb tbody.ours').length"), 3);
  EXPECT_GE(page.eval("document.querySelectorAll('table.lb tbody.published').length").get<int>(),
            3);
  auto names =
      json::parse(page.eval("JSON.stringify(Array.prototype.map.call(document.querySelectorAll('"
                            "tbody.ours .name'),function(e){return e.textContent;}))")
                      .get<std::string>());
  std::vector<unieval::testing::FixtureRun> by_exact = runs;
  std::sort(by_exact.begin(), by_exact.end(),
            [](const auto& a, const auto& b) { return a.exact > b.exact; });
  ASSERT_EQ(names.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(names[i], by_exact[i].system) << i;
  // Values as rendered: exact at two decimals, the interval, the paper line.
  auto shown = json::parse(page.eval("JSON.stringify(Array.prototype.map.call(document."
                                     "querySelectorAll('tbody.ours tr.main'),function(t){"
                                     "return "
                                     "[t.cells[1].querySelector('.v').textContent,t.cells[2]."
                                     "querySelector('.v').textContent,t.cells[1].innerText];}))")
                               .get<std::string>());
  for (size_t i = 0; i < 3; ++i) {
    char e[32], f[32];
    std::snprintf(e, sizeof e, "%.2f", by_exact[i].exact);
    std::snprintf(f, sizeof f, "%.2f", by_exact[i].f1);
    EXPECT_EQ(shown[i][0], e) << by_exact[i].system;
    EXPECT_EQ(shown[i][1], f) << by_exact[i].system;
  }
  const std::string bert = shown[0][2];  // BERT_LARGE is the best of the fixture
  EXPECT_NE(bert.find("paper 78.9"), std::string::npos) << bert;
  EXPECT_TRUE(bert.find("✓") != std::string::npos || bert.find("✗") != std::string::npos) << bert;
  // alpha-sys is marked significantly below the best.
  EXPECT_EQ(page.eval("document.querySelectorAll('tbody.ours')[2].querySelectorAll('.sig').length"),
            2);
  // Phone width: the page itself does not scroll sideways (the table scrolls in its box).
  EXPECT_LE(page.eval("document.documentElement.scrollWidth").get<int>(),
            page.eval("window.innerWidth").get<int>());
  page.screenshot((artifacts / "leaderboard-phone.png").string(), false);
  // The details row opens under its system and holds its provenance.
  EXPECT_EQ(page.eval("document.querySelector('tbody.ours details').open"), false);  // collapsed
  EXPECT_EQ(page.eval("document.querySelector('tbody.ours dl').checkVisibility()"), false);
  page.click("tbody.ours summary");
  EXPECT_EQ(page.eval("document.querySelector('tbody.ours details').open"), true);
  EXPECT_EQ(page.eval("document.querySelector('tbody.ours dl').checkVisibility()"), true);
  EXPECT_NE(page.eval("document.querySelector('tbody.ours dl').innerText")
                .get<std::string>()
                .find("abc123def456"),
            std::string::npos);
  EXPECT_LE(page.eval("document.documentElement.scrollWidth").get<int>(),
            page.eval("window.innerWidth").get<int>());
  page.screenshot((artifacts / "leaderboard-phone-details.png").string(), false);

  // Sorting by clicking the f1 header: best (highest) first, then ascending; empty cells last.
  page.resize(1280, 900, false);
  auto check_sorted = [&](bool descending) {
    auto keys = json::parse(page.eval("JSON.stringify(Array.prototype.map.call(document."
                                      "querySelectorAll('table.lb tbody'),function(b){"
                                      "return b.rows[0].cells[2].getAttribute('data-k');}))")
                                .get<std::string>());
    std::vector<double> v;
    size_t empty_seen = 0;
    for (const auto& k : keys) {
      if (k.get<std::string>().empty()) {
        ++empty_seen;
        continue;
      }
      EXPECT_EQ(empty_seen, 0u) << "an empty cell sorted before a value: " << keys;
      v.push_back(std::stod(k.get<std::string>()));
    }
    ASSERT_GE(v.size(), 4u);
    for (size_t i = 1; i < v.size(); ++i)
      EXPECT_TRUE(descending ? v[i - 1] >= v[i] : v[i - 1] <= v[i]) << keys;
    // Every system row is still followed by its own details row.
    EXPECT_EQ(
        page.eval(
            "Array.prototype.every.call(document.querySelectorAll('table.lb tbody'),function(b){"
            "return b.rows.length===2&&b.rows[1].classList.contains('det');})"),
        true);
  };
  page.click("table.lb thead th:nth-child(3)");
  EXPECT_EQ(
      page.eval(
          "document.querySelector('table.lb thead th:nth-child(3)').getAttribute('aria-sort')"),
      "descending");
  check_sorted(true);
  page.screenshot((artifacts / "leaderboard-sorted-f1.png").string(), true);
  page.click("table.lb thead th:nth-child(3)");
  EXPECT_EQ(
      page.eval(
          "document.querySelector('table.lb thead th:nth-child(3)').getAttribute('aria-sort')"),
      "ascending");
  check_sorted(false);
  // By system name: alphabetical.
  page.click("table.lb thead th:nth-child(1)");
  auto sys = json::parse(page.eval("JSON.stringify(Array.prototype.map.call(document."
                                   "querySelectorAll('table.lb tbody'),function(b){"
                                   "return b.rows[0].cells[0].getAttribute('data-k');}))")
                             .get<std::string>());
  EXPECT_EQ(page.eval("(function(){var a=" + sys.dump() +
                      ";for(var i=1;i<a.length;i++)if(a[i-1].localeCompare(a[i])>0)return "
                      "false;return true;})()"),
            true)
      << sys;
  EXPECT_TRUE(std::filesystem::file_size(artifacts / "leaderboard-phone.png") > 1000);
  EXPECT_TRUE(std::filesystem::file_size(artifacts / "leaderboard-sorted-f1.png") > 1000);
  std::cout << "screenshots: " << (artifacts / "leaderboard-phone.png") << ", "
            << (artifacts / "leaderboard-sorted-f1.png") << "\n";
}

}  // namespace
