// Export and import of frame streams through the Arrow C Stream Interface.
#include <cerrno>
#include <cstring>
#include <new>

#include "ember/core/error.h"
#include "ember/frame/c_data.h"

namespace ember::frame {

namespace {

struct StreamPrivate {
  DType schema;
  std::function<std::optional<DataFrame>()> next;
  std::string last_error;
  int error_code = 0;  // once set, the stream is broken and every call returns it
  int64_t produced = 0;
};

StreamPrivate* priv(ArrowArrayStream* s) { return static_cast<StreamPrivate*>(s->private_data); }

// Runs `f`, turning exceptions into an errno code and the stream's last error.
template <class F>
int guarded(ArrowArrayStream* s, F&& f) {
  StreamPrivate* p = priv(s);
  if (p->error_code != 0) return p->error_code;
  try {
    f(p);
    return 0;
  } catch (const std::bad_alloc&) {
    p->last_error = "out of memory";
    p->error_code = ENOMEM;
  } catch (const Error& e) {
    p->last_error = e.what();
    p->error_code = EINVAL;
  } catch (const std::exception& e) {
    p->last_error = e.what();
    p->error_code = EIO;
  } catch (...) {
    p->last_error = "unknown exception";
    p->error_code = EIO;
  }
  return p->error_code;
}

int stream_get_schema(ArrowArrayStream* s, ArrowSchema* out) {
  return guarded(s, [&](StreamPrivate* p) {
    EMBER_CHECK(out != nullptr, "get_schema: null ArrowSchema pointer");
    export_type(p->schema, out);
  });
}

int stream_get_next(ArrowArrayStream* s, ArrowArray* out) {
  return guarded(s, [&](StreamPrivate* p) {
    EMBER_CHECK(out != nullptr, "get_next: null ArrowArray pointer");
    std::optional<DataFrame> f = p->next();
    if (!f) {
      out->release = nullptr;  // the end of the stream
      return;
    }
    const DType t = f->dtype();
    EMBER_CHECK(t == p->schema, "export_stream: frame ", p->produced, " has schema ", t.to_string(),
                " but the stream's schema is ", p->schema.to_string());
    ++p->produced;
    export_dataframe(*f, out);
  });
}

const char* stream_get_last_error(ArrowArrayStream* s) {
  StreamPrivate* p = priv(s);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void stream_release(ArrowArrayStream* s) {
  if (s == nullptr || s->release == nullptr) return;
  delete priv(s);
  s->private_data = nullptr;
  s->release = nullptr;
}

}  // namespace

void export_stream(const DType& schema, std::function<std::optional<DataFrame>()> next, ArrowArrayStream* out) {
  EMBER_CHECK(out != nullptr, "export_stream: null ArrowArrayStream pointer");
  EMBER_CHECK_TYPE(schema.id() == TypeId::Struct, "export_stream: the schema must be a struct type, got ",
                   schema.to_string());
  EMBER_CHECK(next != nullptr, "export_stream: no frame source");
  auto p = std::make_unique<StreamPrivate>(StreamPrivate{schema, std::move(next), {}, 0, 0});
  out->get_schema = &stream_get_schema;
  out->get_next = &stream_get_next;
  out->get_last_error = &stream_get_last_error;
  out->release = &stream_release;
  out->private_data = p.release();
}

void export_stream(std::vector<DataFrame> frames, ArrowArrayStream* out, const std::optional<DType>& schema) {
  EMBER_CHECK(schema || !frames.empty(), "export_stream: an empty list of frames needs an explicit schema");
  const DType t = schema ? *schema : frames.front().dtype();
  auto state = std::make_shared<std::pair<std::vector<DataFrame>, size_t>>(std::move(frames), 0);
  export_stream(
      t,
      [state]() -> std::optional<DataFrame> {
        if (state->second >= state->first.size()) return std::nullopt;
        // Hand each frame over and drop our reference, so its memory goes when the consumer's does.
        return std::move(state->first[state->second++]);
      },
      out);
}

// ---- StreamReader ---------------------------------------------------------------------

StreamReader::StreamReader(ArrowArrayStream* stream, const ImportOptions& options) : options_(options) {
  EMBER_CHECK(stream != nullptr, "StreamReader: null ArrowArrayStream pointer");
  EMBER_CHECK(stream->release != nullptr, "StreamReader: the ArrowArrayStream is already released");
  stream_ = std::make_unique<ArrowArrayStream>(*stream);  // move, as the spec defines it
  stream->release = nullptr;
  try {
    EMBER_CHECK(stream_->get_schema && stream_->get_next && stream_->get_last_error,
                "StreamReader: the stream has NULL callbacks");
    ArrowSchema s;
    std::memset(&s, 0, sizeof(s));
    const int rc = stream_->get_schema(stream_.get(), &s);
    if (rc != 0) {
      const char* msg = stream_->get_last_error(stream_.get());
      EMBER_ERROR("StreamReader: get_schema failed (", std::strerror(rc), "): ", msg ? msg : "no message");
    }
    schema_ = import_type(&s);
    EMBER_CHECK_TYPE(schema_.id() == TypeId::Struct, "StreamReader: the stream's schema is ", schema_.to_string(),
                     ", not a struct (record batch) type");
  } catch (...) {
    stream_->release(stream_.get());
    throw;
  }
}

StreamReader::StreamReader(StreamReader&& o) noexcept
    : stream_(std::move(o.stream_)), schema_(o.schema_), options_(o.options_), done_(o.done_) {}

StreamReader::~StreamReader() {
  if (stream_ && stream_->release) stream_->release(stream_.get());
}

std::optional<DataFrame> StreamReader::next() {
  if (done_) return std::nullopt;
  EMBER_CHECK(stream_ && stream_->release, "StreamReader.next: the stream was released");
  ArrowArray a;
  std::memset(&a, 0, sizeof(a));
  const int rc = stream_->get_next(stream_.get(), &a);
  if (rc != 0) {
    const char* msg = stream_->get_last_error(stream_.get());
    EMBER_ERROR("StreamReader.next: get_next failed (", std::strerror(rc), "): ", msg ? msg : "no message");
  }
  if (a.release == nullptr) {
    done_ = true;
    return std::nullopt;
  }
  return import_dataframe(&a, schema_, options_);
}

std::vector<DataFrame> StreamReader::read_all() {
  std::vector<DataFrame> out;
  while (auto f = next()) out.push_back(std::move(*f));
  return out;
}

}  // namespace ember::frame
