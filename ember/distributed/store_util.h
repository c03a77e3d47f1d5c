// Helpers shared by the store implementations (not installed API): key quoting for error
// messages, the decimal counters that add() keeps, deadlines, and the timeout errors.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::distributed::detail {

using Clock = std::chrono::steady_clock;

// 'key' for messages: non-printable bytes as \xNN, long keys cut.
std::string quote(std::string_view key);
std::string quote_list(const std::vector<std::string>& keys);

inline std::vector<uint8_t> to_bytes(std::string_view s) { return {s.begin(), s.end()}; }

// Adds `delta` to the decimal counter in `value` (empty: 0), writes the new text back and
// returns the new value. A value that is not an integer, or an overflow, raises an error
// naming `op` and `key`.
int64_t add_to_counter(const char* op, const std::string& key, std::vector<uint8_t>& value, int64_t delta);

// A point in time a blocking call must end by; kNoTimeout (0 ms) never comes.
struct Deadline {
  explicit Deadline(std::chrono::milliseconds timeout);
  bool forever() const { return forever_; }
  bool passed() const { return !forever_ && Clock::now() >= at_; }
  Clock::time_point at() const { return at_; }
  // Milliseconds left, rounded up, at least 0; -1 when forever (poll(2)'s convention).
  int64_t remaining_ms() const;

 private:
  bool forever_;
  Clock::time_point at_;
};

[[noreturn]] void throw_get_timeout(const char* store, const std::string& key, std::chrono::milliseconds timeout);
[[noreturn]] void throw_wait_timeout(const char* store, const std::vector<std::string>& keys,
                                     const std::vector<std::string>& missing, std::chrono::milliseconds timeout);
void check_timeout(const char* op, std::chrono::milliseconds timeout);

}  // namespace ember::distributed::detail
