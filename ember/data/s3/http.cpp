#include "ember/data/s3/http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "ember/core/error.h"

namespace ember::data::s3::detail {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxErrorBody = 1 << 20;

void global_init() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  EMBER_CHECK(rc == CURLE_OK, "s3: curl_global_init failed: ", curl_easy_strerror(rc));
}

struct Transfer {
  const HttpRequest* req;
  HttpResponse* resp;
  Clock::time_point last_progress;
  curl_off_t last_bytes = -1;
  size_t body_pos = 0;  // PUT bytes already handed to curl
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new response (after a 100 Continue, say): start over.
    t->resp->headers.clear();
    size_t sp = line.find(' ');
    t->resp->status = sp == std::string_view::npos ? 0 : std::strtol(std::string(line.substr(sp + 1, 3)).c_str(), nullptr, 10);
  } else if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    t->resp->headers.emplace_back(std::move(name), std::string(value));
  }
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  bool ok_status = t->resp->status >= 200 && t->resp->status < 300;
  if (ok_status && t->req->sink) {
    bool ok = false;
    try {
      ok = t->req->sink(*t->resp, data, len);
    } catch (...) {
      t->resp->sink_error = std::current_exception();
    }
    if (!ok) {
      t->resp->sink_failed = true;
      return 0;  // aborts with CURLE_WRITE_ERROR
    }
    return len;
  }
  if (ok_status || t->resp->body.size() < kMaxErrorBody)
    t->resp->body.append(data, ok_status ? len : std::min(len, kMaxErrorBody - t->resp->body.size()));
  return len;
}

size_t on_read(char* buf, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t k = std::min(size * n, t->req->body.size() - t->body_pos);
  std::memcpy(buf, t->req->body.data() + t->body_pos, k);
  t->body_pos += k;
  return k;
}

int on_progress(void* user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
  auto* t = static_cast<Transfer*>(user);
  if (t->req->cancel && t->req->cancel->load(std::memory_order_relaxed)) {
    t->resp->cancelled = true;
    return 1;
  }
  auto now = Clock::now();
  if (dlnow + ulnow != t->last_bytes) {
    t->last_bytes = dlnow + ulnow;
    t->last_progress = now;
  } else if (now - t->last_progress > std::chrono::milliseconds(t->req->stall_timeout_ms)) {
    t->resp->timed_out = true;
    return 1;
  }
  return 0;
}

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return std::nullopt;
}

namespace {

// Every live pool, so that fork() finds each pool's mutex free: the prepare handler takes
// them all (and the registry's), the parent and the child release them after. Without it, a
// fork while another thread held a pool's mutex (for a vector push or pop) left the child's
// copy locked forever, and the child's first request hung.
struct PoolRegistry {
  std::mutex mu;
  std::vector<std::mutex*> pools;

  static PoolRegistry& get() {
    static PoolRegistry* r = [] {
      auto* reg = new PoolRegistry;  // never destroyed: pools may outlive static destruction
      pthread_atfork([] { get().lock_all(); }, [] { get().unlock_all(); }, [] { get().unlock_all(); });
      return reg;
    }();
    return *r;
  }
  void lock_all() {
    mu.lock();
    for (std::mutex* m : pools) m->lock();
  }
  void unlock_all() {
    for (std::mutex* m : pools) m->unlock();
    mu.unlock();
  }
};

}  // namespace

HttpPool::HttpPool() : owner_pid_(getpid()) {
  global_init();
  PoolRegistry& r = PoolRegistry::get();
  std::lock_guard<std::mutex> g(r.mu);
  r.pools.push_back(&mu_);
}

HttpPool::~HttpPool() {
  {
    PoolRegistry& r = PoolRegistry::get();
    std::lock_guard<std::mutex> g(r.mu);
    r.pools.erase(std::find(r.pools.begin(), r.pools.end(), &mu_));
  }
  if (owner_pid_ != getpid()) return;  // a forked child: the handles are the parent's
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

HttpResponse HttpPool::perform(const HttpRequest& req) {
  CURL* h = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (owner_pid_ != getpid()) {
      // A forked worker process: the idle handles' sockets (and TLS sessions) are the
      // parent's. Closing them here could disturb the parent's streams, so they are
      // abandoned and this process opens its own.
      idle_.clear();
      owner_pid_ = getpid();
    }
    if (!idle_.empty()) {
      h = static_cast<CURL*>(idle_.back());
      idle_.pop_back();
    }
  }
  if (!h) h = curl_easy_init();
  EMBER_CHECK(h != nullptr, "s3: curl_easy_init failed");
  curl_easy_reset(h);  // options only: live connections stay in the handle

  HttpResponse resp;
  Transfer t{&req, &resp, Clock::now()};
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : req.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip on PUT
  headers = curl_slist_append(headers, "Accept:");

  curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);  // keys may contain "/../"; send them as signed
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(req.connect_timeout_ms));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 256L * 1024);
  if (req.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (req.method == "PUT") {
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, &t);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  } else if (req.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }

  CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  resp.curl_code = rc;
  if (rc != CURLE_OK) {
    resp.curl_error = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    if (resp.timed_out) resp.curl_error = "no data for " + std::to_string(req.stall_timeout_ms) + " ms (request_timeout_ms)";
  }
  // A handle whose transfer broke may hold a half-used connection; curl closes those
  // itself, so the handle can go back to the pool either way.
  std::lock_guard<std::mutex> lock(mu_);
  if (owner_pid_ == getpid()) idle_.push_back(h);
  return resp;
}

}  // namespace ember::data::s3::detail
