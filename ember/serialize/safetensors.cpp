#include "ember/serialize/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"
#include "ember/core/json.h"

namespace ember::serialize {

static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

namespace {

constexpr uint64_t kMaxHeader = 100'000'000;  // the reference implementation's limit
constexpr const char* kDtypeKey = "ember.dtype.";

struct DtypeName {
  ScalarType type;
  const char* name;
};
// Real dtypes with a safetensors name; complex types map to their real component type.
constexpr DtypeName kDtypes[] = {
    {kBool, "BOOL"}, {kByte, "U8"},  {kChar, "I8"},       {kShort, "I16"}, {kInt, "I32"},
    {kLong, "I64"},  {kHalf, "F16"}, {kBFloat16, "BF16"}, {kFloat, "F32"}, {kDouble, "F64"},
};

const char* dtype_name(ScalarType t) {
  for (const DtypeName& d : kDtypes)
    if (d.type == t) return d.name;
  EMBER_ERROR("safetensors: no dtype name for ", t);
}

ScalarType complex_of(ScalarType real) {
  switch (real) {
    case kHalf: return kComplexHalf;
    case kFloat: return kComplexFloat;
    case kDouble: return kComplexDouble;
    default: return ScalarType::Undefined;
  }
}

// PyTorch's names for the complex dtypes, as stored in the metadata.
const char* complex_name(ScalarType t) {
  return t == kComplexHalf ? "complex32" : t == kComplexFloat ? "complex64" : "complex128";
}

ScalarType real_of(ScalarType t) {
  switch (t) {
    case kComplexHalf: return kHalf;
    case kComplexFloat: return kFloat;
    case kComplexDouble: return kDouble;
    default: return t;
  }
}


}  // namespace

std::string to_safetensors(const std::map<std::string, Tensor>& tensors,
                           const std::map<std::string, std::string>& metadata) {
  NoGradGuard no_grad;
  json::Object header;
  json::Object meta;
  for (const auto& [k, v] : metadata) {
    EMBER_CHECK(k.rfind(kDtypeKey, 0) != 0, "safetensors: metadata key '", k, "' is reserved by ember");
    meta.emplace_back(k, json::Value(v));
  }
  std::vector<Tensor> data;  // contiguous CPU tensors in file order
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK(name != "__metadata__", "safetensors: a tensor cannot be named '__metadata__'");
    EMBER_CHECK(t.defined(), "safetensors: tensor '", name, "' is undefined");
    Tensor c = t.detach().to(Device(kCPU)).contiguous();
    const ScalarType real = real_of(c.scalar_type());
    if (real != c.scalar_type()) {
      meta.emplace_back(kDtypeKey + name, json::Value(complex_name(c.scalar_type())));
      c = view_as_real(c.resolve_conj()).contiguous();
    }
    json::Array shape;
    for (int64_t s : c.sizes()) shape.emplace_back(s);
    const uint64_t bytes = uint64_t(c.numel()) * element_size(c.scalar_type());
    header.emplace_back(name, json::Value(json::Object{
                                  {"dtype", json::Value(dtype_name(c.scalar_type()))},
                                  {"shape", json::Value(std::move(shape))},
                                  {"data_offsets", json::Value(json::Array{json::Value(int64_t(offset)),
                                                                           json::Value(int64_t(offset + bytes))})}}));
    offset += bytes;
    data.push_back(std::move(c));
  }
  if (!meta.empty()) header.insert(header.begin(), {"__metadata__", json::Value(std::move(meta))});
  std::string text = json::dump(json::Value(std::move(header)));
  text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-byte aligned
  std::string out;
  out.reserve(8 + text.size() + offset);
  const uint64_t n = text.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  out += text;
  for (const Tensor& c : data)
    out.append(static_cast<const char*>(c.data_ptr()), size_t(c.numel()) * element_size(c.scalar_type()));
  return out;
}

SafetensorsContents from_safetensors(const void* data, size_t size, const std::string& what) {
  const char* bytes = static_cast<const char*>(data);
  EMBER_CHECK(size >= 8, what, ": not a safetensors file: ", size, " bytes, but the header length alone takes 8");
  uint64_t n = 0;
  std::memcpy(&n, bytes, 8);
  EMBER_CHECK(n <= kMaxHeader, what, ": safetensors header length ", n, " exceeds the limit of ", kMaxHeader, " bytes");
  EMBER_CHECK(n <= size - 8, what, ": truncated safetensors file: the header needs ", n, " bytes but only ", size - 8,
              " follow the length");
  const json::Value header = json::parse(std::string_view(bytes + 8, n), what + " (safetensors header)");
  const uint64_t data_size = size - 8 - n;
  const char* base = bytes + 8 + n;

  SafetensorsContents out;
  std::map<std::string, std::string> dtypes;  // ember.dtype.* entries
  if (const json::Value* meta = header.find("__metadata__")) {
    for (const auto& [k, v] : meta->as_object(what + ": __metadata__")) {
      const std::string& s = v.as_string(what + ": __metadata__[\"" + k + "\"]");
      if (k.rfind(kDtypeKey, 0) == 0) dtypes[k.substr(std::strlen(kDtypeKey))] = s;
      else out.metadata[k] = s;
    }
  }
  struct Range {
    uint64_t begin, end;
    const std::string* name;
  };
  std::vector<Range> ranges;
  for (const auto& [name, entry] : header.as_object(what + ": safetensors header")) {
    if (name == "__metadata__") continue;
    const std::string where = what + ": tensor '" + name + "'";
    const json::Value* dt = entry.find("dtype");
    const json::Value* shape = entry.find("shape");
    const json::Value* offsets = entry.find("data_offsets");
    EMBER_CHECK(entry.is_object() && dt && shape && offsets, where,
                ": expected an object with \"dtype\", \"shape\" and \"data_offsets\"");
    const std::string& dname = dt->as_string(where + " dtype");
    ScalarType type = ScalarType::Undefined;
    for (const DtypeName& d : kDtypes)
      if (dname == d.name) type = d.type;
    EMBER_CHECK(type != ScalarType::Undefined, where, ": unsupported dtype \"", dname,
                "\" (ember reads BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64)");
    std::vector<int64_t> sizes;
    uint64_t numel = 1;
    const json::Array& dims = shape->as_array(where + " shape");
    EMBER_CHECK(dims.size() <= 64, where, ": ", dims.size(), " dimensions (at most 64)");
    for (const json::Value& d : dims) {
      const int64_t s = d.as_int(where + " shape entry");
      EMBER_CHECK(s >= 0, where, ": negative size ", s, " in shape");
      EMBER_CHECK(s == 0 || numel <= std::numeric_limits<int64_t>::max() / uint64_t(s), where, ": shape overflows");
      numel *= uint64_t(s);
      sizes.push_back(s);
    }
    const json::Array& range = offsets->as_array(where + " data_offsets");
    EMBER_CHECK(range.size() == 2, where, ": data_offsets needs [begin, end], got ", range.size(), " entries");
    const int64_t b = range[0].as_int(where + " data_offsets[0]"), e = range[1].as_int(where + " data_offsets[1]");
    EMBER_CHECK(b >= 0 && b <= e && uint64_t(e) <= data_size, where, ": data_offsets [", b, ", ", e,
                "] outside the data section of ", data_size, " bytes");
    const uint64_t item = element_size(type);
    EMBER_CHECK(numel <= std::numeric_limits<uint64_t>::max() / item && numel * item == uint64_t(e - b), where, ": ",
                e - b, " bytes of data but dtype ", dname, " and shape ", IntArrayRef(sizes), " need ", numel * item);
    ScalarType final_type = type;
    if (auto it = dtypes.find(name); it != dtypes.end()) {
      const ScalarType c = complex_of(type);
      EMBER_CHECK(c != ScalarType::Undefined && it->second == complex_name(c) && !sizes.empty() &&
                      sizes.back() == 2,
                  where, ": metadata says dtype ", it->second, " but the stored tensor is ", dname, " of shape ",
                  IntArrayRef(sizes));
      final_type = c;
    }
    Tensor t = empty(sizes, TensorOptions().dtype(type));
    if (numel) std::memcpy(t.data_ptr(), base + b, size_t(numel * item));
    if (final_type != type) t = view_as_complex(t).clone();
    ranges.push_back({uint64_t(b), uint64_t(e), &out.tensors.emplace(name, std::move(t)).first->first});
  }
  // The byte ranges must tile the data section: no overlaps, gaps or trailing bytes.
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  for (const Range& r : ranges) {
    EMBER_CHECK(r.begin == covered, what, ": tensor '", *r.name, "' starts at byte ", r.begin, " of the data section; ",
                r.begin < covered ? "it overlaps the previous tensor" : "bytes before it belong to no tensor",
                " (expected ", covered, ")");
    covered = r.end;
  }
  EMBER_CHECK(covered == data_size, what, ": the data section has ", data_size, " bytes but the tensors cover ",
              covered);
  for (const auto& [name, type] : dtypes)
    EMBER_CHECK(out.tensors.count(name), what, ": metadata names dtype ", type, " for a tensor '", name,
                "' that the file does not contain");
  return out;
}

void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata) {
  write_file_atomic(path, to_safetensors(tensors, metadata));
}

SafetensorsContents load_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  EMBER_CHECK(fd >= 0, "load: cannot open '", path, "': ", errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    EMBER_ERROR("load: '", path, "' is not a regular file");
  }
  std::string bytes(size_t(st.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t r = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    done += size_t(r);
  }
  ::close(fd);
  bytes.resize(done);
  return from_safetensors(bytes.data(), bytes.size(), "'" + path + "'");
}

}  // namespace ember::serialize
