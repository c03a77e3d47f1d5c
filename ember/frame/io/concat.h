// Concatenation of arrays of one type, and the bitmap copies it needs: used by the IPC
// readers (several record batches read as one frame, dictionary deltas) and the CSV reader
// (chunks parsed in parallel). Internal to ember/frame/io.
#pragma once
#include <cstdint>
#include <vector>

#include "ember/frame/array_data.h"

namespace ember::frame::io::detail {

// Copies `n` bits from `src` at bit `src_offset` to `dst` at bit `dst_offset`, a byte at a
// time where it can (bits::copy goes bit by bit when the offsets are not multiples of 8).
void copy_bits(const uint8_t* src, int64_t src_offset, int64_t n, uint8_t* dst, int64_t dst_offset);
// Sets bits [offset, offset + n) of `dst`.
void set_bits(uint8_t* dst, int64_t offset, int64_t n);

// The arrays (each valid, all of type `type` up to nullable flags) one after another, as
// an array of `type`. One part is returned as is. Dictionary arrays that share one
// dictionary keep it; otherwise the dictionaries are appended and the indices shifted
// (an error when the shifted indices overflow the index type).
ArrayDataPtr concat_arrays(const std::vector<ArrayDataPtr>& parts, const DType& type);

// An array of length 0 of any type (offsets buffers hold their one zero; a dictionary array
// gets an empty dictionary).
ArrayDataPtr empty_array(const DType& type);

}  // namespace ember::frame::io::detail
