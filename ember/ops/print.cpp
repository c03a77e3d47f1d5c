// `std::cout << tensor`, formatted exactly like LibTorch (ATen's Formatting.cpp layout:
// a common format per tensor, matrices in column blocks, "(i,j,.,.) =" slices, then
// "[ CPUFloatType{2,3} ]"). Complex elements print as a+bj.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "ember/ops/functions.h"

namespace ember {

namespace {
struct FormatGuard {
  explicit FormatGuard(std::ostream& s) : s_(s) { saved_.copyfmt(s); }
  ~FormatGuard() { s_.copyfmt(saved_); }
  std::ostream& s_;
  std::ios saved_{nullptr};
};

std::ostream& defaultfloat(std::ostream& s) {
  s.unsetf(std::ios_base::floatfield);
  return s;
}

// Chooses scale and column width for the finite values of a contiguous double tensor.
std::pair<double, int64_t> print_format(std::ostream& stream, const double* p, int64_t size) {
  if (size == 0) return {1., 0};
  bool int_mode = true;
  for (int64_t i = 0; i < size; ++i)
    if (std::isfinite(p[i]) && p[i] != std::ceil(p[i])) { int_mode = false; break; }
  int64_t offset = 0;
  while (offset < size && !std::isfinite(p[offset])) ++offset;
  double exp_min = 1, exp_max = 1;
  if (offset != size) {
    exp_min = std::fabs(p[offset]);
    exp_max = std::fabs(p[offset]);
    for (int64_t i = offset; i < size; ++i) {
      double z = std::fabs(p[i]);
      if (std::isfinite(z)) {
        if (z < exp_min) exp_min = z;
        if (p[i] > exp_max) exp_max = z;  // (sic) LibTorch compares the signed value here
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  double scale = 1;
  int64_t sz = 11;
  if (int_mode) {
    if (exp_max > 9) {
      sz = 11;
      stream << std::scientific << std::setprecision(4);
    } else {
      sz = int64_t(exp_max) + 1;
      stream << defaultfloat;
    }
  } else if (exp_max - exp_min > 4) {
    sz = 11;
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99) sz = sz + 1;
    stream << std::scientific << std::setprecision(4);
  } else if (exp_max > 5 || exp_max < 0) {
    sz = 7;
    scale = std::pow(10, exp_max - 1);
    stream << std::fixed << std::setprecision(4);
  } else {
    sz = exp_max == 0 ? 7 : int64_t(exp_max) + 6;
    stream << std::fixed << std::setprecision(4);
  }
  return {scale, sz};
}

void print_indent(std::ostream& s, int64_t indent) {
  for (int64_t i = 0; i < indent; ++i) s << " ";
}
void print_scale(std::ostream& s, double scale) {
  FormatGuard g(s);
  s << defaultfloat << scale << " *" << std::endl;
}

// Elements are doubles; for complex tensors, `im` holds the imaginary parts.
struct Elems {
  const double* re;
  const double* im;
};
void put(std::ostream& s, int64_t sz, Elems e, int64_t i, double scale) {
  if (!e.im) {
    s << std::setw(sz) << e.re[i] / scale;
    return;
  }
  std::ostringstream tmp;
  tmp.copyfmt(s);
  tmp << e.re[i] / scale << (e.im[i] / scale < 0 || std::signbit(e.im[i]) ? "-" : "+") << std::fabs(e.im[i] / scale) << "j";
  s << std::setw(2 * sz + 2) << tmp.str();
}

void print_matrix(std::ostream& stream, Elems e, int64_t rows, int64_t cols, int64_t linesize, int64_t indent,
                  const double* fmt_vals, int64_t fmt_n) {
  auto [scale, sz] = print_format(stream, fmt_vals, fmt_n);
  int64_t col_width = e.im ? 2 * sz + 3 : sz + 1;
  print_indent(stream, indent);
  int64_t per_line = std::max<int64_t>(1, (linesize - indent) / col_width);
  int64_t first = 0, last = -1;
  while (first < cols) {
    last = first + per_line <= cols ? first + per_line - 1 : cols - 1;
    if (per_line < cols) {
      if (first != 0) stream << std::endl;
      stream << "Columns " << first + 1 << " to " << last + 1;
      print_indent(stream, indent);
    }
    if (scale != 1) {
      print_scale(stream, scale);
      print_indent(stream, indent);
    }
    for (int64_t l = 0; l < rows; ++l) {
      for (int64_t c = first; c <= last; ++c) {
        put(stream, sz, e, l * cols + c, scale);
        if (c == last) {
          stream << std::endl;
          if (l != rows - 1) {
            print_indent(stream, indent);
            if (scale != 1) stream << " ";
          }
        } else {
          stream << " ";
        }
      }
    }
    first = last + 1;
  }
}

const char* device_prefix(Device d) {
  switch (d.type()) {
    case kCPU: return "CPU";
    case kCUDA: return "CUDA";
    case kMeta: return "Meta";
  }
  return "";
}
}  // namespace

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedType";
  return std::string(device_prefix(device())) + to_string(scalar_type()) + "Type";
}

std::ostream& print(std::ostream& stream, const Tensor& t, int64_t linesize) {
  FormatGuard guard(stream);
  if (!t.defined()) return stream << "[ Tensor (undefined) ]";
  if (t.is_meta()) {
    stream << "[ " << t.toString() << "{" ;
    for (int64_t i = 0; i < t.dim(); ++i) stream << (i ? "," : "") << t.size(i);
    return stream << "} ]";
  }
  Tensor re, im;
  if (t.is_complex()) {
    Tensor c = t.to(Device(kCPU), kComplexDouble).contiguous();
    re = real(c).contiguous();
    im = imag(c).contiguous();
  } else {
    re = t.to(Device(kCPU), kDouble).contiguous();
  }
  const double* rp = re.data_ptr<double>();
  const double* ip = im.defined() ? im.data_ptr<double>() : nullptr;
  // The format is chosen over real and imaginary parts together.
  Tensor fmt = im.defined() ? cat({re.flatten(), im.flatten()}) : re;
  const double* fp = fmt.data_ptr<double>();
  int64_t fn = fmt.numel();
  Elems e{rp, ip};
  int64_t nd = re.dim();
  if (nd == 0) {
    stream << defaultfloat;
    if (ip) stream << rp[0] << (ip[0] < 0 ? "-" : "+") << std::fabs(ip[0]) << "j" << std::endl;
    else stream << rp[0] << std::endl;
    stream << "[ " << t.toString() << "{}";
  } else if (nd == 1) {
    if (re.numel() > 0) {
      auto [scale, sz] = print_format(stream, fp, fn);
      if (scale != 1) print_scale(stream, scale);
      for (int64_t i = 0; i < re.size(0); ++i) {
        put(stream, sz, e, i, scale);
        stream << std::endl;
      }
    }
    stream << "[ " << t.toString() << "{" << re.size(0) << "}";
  } else if (nd == 2) {
    if (re.numel() > 0) print_matrix(stream, e, re.size(0), re.size(1), linesize, 0, fp, fn);
    stream << "[ " << t.toString() << "{" << re.size(0) << "," << re.size(1) << "}";
  } else {
    if (re.numel() > 0) {
      int64_t rows = re.size(nd - 2), cols = re.size(nd - 1), mat = rows * cols;
      std::vector<int64_t> counter(nd - 2, 0);
      int64_t nmat = re.numel() / mat;
      for (int64_t m = 0; m < nmat; ++m) {
        if (m) stream << std::endl;
        stream << "(";
        for (int64_t i = 0; i < nd - 2; ++i) stream << counter[i] + 1 << ",";
        stream << ".,.) = " << std::endl;
        Tensor slice_re = re, slice_im = im;
        for (int64_t i = 0; i < nd - 2; ++i) {
          slice_re = slice_re.select(0, counter[i]);
          if (slice_im.defined()) slice_im = slice_im.select(0, counter[i]);
        }
        slice_re = slice_re.contiguous();
        if (slice_im.defined()) slice_im = slice_im.contiguous();
        Elems se{slice_re.data_ptr<double>(), slice_im.defined() ? slice_im.data_ptr<double>() : nullptr};
        Tensor sfmt = slice_im.defined() ? cat({slice_re.flatten(), slice_im.flatten()}) : slice_re;
        print_matrix(stream, se, rows, cols, linesize, 1, sfmt.data_ptr<double>(), sfmt.numel());
        // advance the counter, first dimension fastest (as LibTorch prints)
        for (int64_t i = 0; i < nd - 2; ++i) {
          if (++counter[i] < re.size(i)) break;
          counter[i] = 0;
        }
      }
    }
    stream << "[ " << t.toString() << "{" << re.size(0);
    for (int64_t i = 1; i < nd; ++i) stream << "," << re.size(i);
    stream << "}";
  }
  stream << " ]";
  return stream;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return print(os, t, 80); }
void print(const Tensor& t, int64_t linesize) { print(std::cout, t, linesize); }
void Tensor::print() const {
  if (defined()) std::cerr << "[" << toString() << " " << sizes() << "]" << std::endl;
  else std::cerr << "[UndefinedTensor]" << std::endl;
}

std::ostream& operator<<(std::ostream& os, Half h) { return os << float(h); }
std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << float(h); }
template <class T>
std::ostream& operator<<(std::ostream& os, Complex<T> c) {
  return os << double(c.real()) << (double(c.imag()) < 0 ? "-" : "+") << std::fabs(double(c.imag())) << "j";
}
template std::ostream& operator<<(std::ostream&, Complex<float>);
template std::ostream& operator<<(std::ostream&, Complex<double>);
template std::ostream& operator<<(std::ostream&, Complex<Half>);

}  // namespace ember
