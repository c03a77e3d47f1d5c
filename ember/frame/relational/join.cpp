// DataFrame::join: hash joins on one or more keys (see relational.h for the semantics).
//
// Note [Join plan]
// The keys of both sides are put in one id space (hash_keys.h: join_ids): the smaller side
// is factorized into a table that the other side probes in parallel; an outer join also
// adds the probe side's new keys. Rows with a null key get id -1 and match nothing. Each side
// is then grouped by id (a stable counting sort, "CSR"), and the output's row pairs are laid
// out in pandas' merge order: inner and left by left row (matches in right order), right by
// right row, outer by key (the distinct keys sorted) and then the null-key rows. Finally each
// output column is one take() of its side's rows; a side whose rows come out as 0..n-1 (a
// left join on unique right keys, say) is shared without a copy.
#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "ember/frame/relational/hash_keys.h"
#include "ember/frame/relational/kernels.h"
#include "ember/frame/relational/relational.h"
#include "ember/frame/relational/sort.h"
#include "ember/frame/relational/util.h"

namespace ember::frame {

using relational::chunk_bounds;
using relational::run_chunks;

const char* to_string(JoinHow how) {
  switch (how) {
    case JoinHow::Inner: return "inner";
    case JoinHow::Left: return "left";
    case JoinHow::Right: return "right";
    case JoinHow::Outer: return "outer";
  }
  return "?";
}

namespace {

JoinHow parse_how(std::string_view how) {
  if (how == "inner") return JoinHow::Inner;
  if (how == "left") return JoinHow::Left;
  if (how == "right") return JoinHow::Right;
  if (how == "outer" || how == "full") return JoinHow::Outer;
  EMBER_ERROR("join: unknown join kind '", how, "' (expected 'inner', 'left', 'right' or 'outer')");
}

// Rows grouped by id: rows[offsets[g] .. offsets[g + 1]) are group g's rows in order.
struct Csr {
  std::vector<int64_t> offsets;
  relational::Vec<int32_t> rows;  // row positions (each side has fewer than 2^31 rows)
  int64_t count(int32_t g) const { return g < 0 ? 0 : offsets[size_t(g) + 1] - offsets[size_t(g)]; }
};

Csr group_rows(const relational::Vec<int32_t>& ids, int64_t groups) {
  Csr c;
  c.offsets.assign(size_t(groups) + 1, 0);
  for (int32_t g : ids)
    if (g >= 0) ++c.offsets[size_t(g) + 1];
  for (int64_t g = 0; g < groups; ++g) c.offsets[size_t(g) + 1] += c.offsets[size_t(g)];
  c.rows.resize(size_t(c.offsets.back()));
  std::vector<int64_t> pos(c.offsets.begin(), c.offsets.end() - 1);
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= 0) c.rows[size_t(pos[size_t(ids[i])]++)] = int32_t(i);
  return c;
}

// What drive() found besides the pairs.
struct Drive {
  bool mine_identity = false;  // every driving row gave exactly one pair: mine is 0..n-1 (left unwritten)
  bool unmatched = false;      // some pair has -1 on the other side
};

// Pairs driven by one side's rows in order: each row followed by its matches on the other
// side (in order); unmatched rows kept (with -1) when `keep_unmatched`. Parallel over rows.
Drive drive(const relational::Vec<int32_t>& ids, const Csr& other, bool keep_unmatched, relational::Vec<int32_t>& mine,
            relational::Vec<int32_t>& theirs) {
  const int64_t n = int64_t(ids.size());
  const auto bounds = chunk_bounds(n);
  std::vector<int64_t> totals(bounds.size(), 0);
  std::vector<uint8_t> ones(bounds.size(), 1), misses(bounds.size(), 0);
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    int64_t t = 0;
    bool one = true, miss = false;
    for (int64_t i = b; i < e; ++i) {
      const int64_t m = other.count(ids[size_t(i)]);
      const int64_t k = m > 0 ? m : int64_t(keep_unmatched);
      t += k;
      one &= k == 1;
      miss |= m == 0;
    }
    totals[size_t(c)] = t, ones[size_t(c)] = one, misses[size_t(c)] = miss && keep_unmatched;
  });
  Drive d;
  d.mine_identity = std::all_of(ones.begin(), ones.end(), [](uint8_t v) { return v != 0; });
  d.unmatched = std::any_of(misses.begin(), misses.end(), [](uint8_t v) { return v != 0; });
  std::vector<int64_t> base(bounds.size(), 0);
  int64_t total = 0;
  for (size_t c = 0; c + 1 < bounds.size(); ++c) base[c] = total, total += totals[c];
  if (!d.mine_identity) mine.resize(static_cast<size_t>(total));
  theirs.resize(static_cast<size_t>(total));
  run_chunks(bounds, [&](int64_t c, int64_t b, int64_t e) {
    int64_t pos = base[size_t(c)];
    for (int64_t i = b; i < e; ++i) {
      const int32_t g = ids[size_t(i)];
      const int64_t m = other.count(g);
      if (m > 0) {
        const int32_t* r = other.rows.data() + other.offsets[size_t(g)];
        for (int64_t k = 0; k < m; ++k) {
          if (!d.mine_identity) mine[size_t(pos)] = int32_t(i);
          theirs[size_t(pos++)] = r[k];
        }
      } else if (keep_unmatched) {
        if (!d.mine_identity) mine[size_t(pos)] = int32_t(i);
        theirs[size_t(pos++)] = -1;
      }
    }
  });
  return d;
}

DType key_type(const Column& c) {
  const DType& t = c.dtype();
  return t.id() == TypeId::Dictionary ? t.value_type() : t;
}

DataFrame join_frames(const DataFrame& left, const DataFrame& right, const JoinOptions& o) {
  const char* op = "join";
  std::vector<std::string> lk, rk;
  if (!o.on.empty()) {
    EMBER_CHECK(o.left_on.empty() && o.right_on.empty(), "join: give the keys either as `on` or as `left_on` and "
                "`right_on`, not both");
    lk = rk = o.on;
  } else {
    EMBER_CHECK(!o.left_on.empty() || !o.right_on.empty(), "join: no key columns given (`on`, or `left_on` and `right_on`)");
    EMBER_CHECK(o.left_on.size() == o.right_on.size(), "join: ", o.left_on.size(), " left keys (",
                relational::quoted_names(o.left_on), ") but ", o.right_on.size(), " right keys (",
                relational::quoted_names(o.right_on), ")");
    lk = o.left_on, rk = o.right_on;
  }
  std::vector<Column> lcols, rcols;
  for (size_t k = 0; k < lk.size(); ++k) {
    EMBER_CHECK(std::count(lk.begin(), lk.end(), lk[k]) == 1 && std::count(rk.begin(), rk.end(), rk[k]) == 1,
                "join: the key '", lk[k], "' is given twice");
    lcols.push_back(relational::column_for(left, lk[k], "join (left frame)"));
    rcols.push_back(relational::column_for(right, rk[k], "join (right frame)"));
    const DType lt = key_type(lcols.back()), rt = key_type(rcols.back());
    EMBER_CHECK_TYPE(lt.equals(rt, false), "join: key ", lk[k] == rk[k] ? "'" + lk[k] + "'" : "'" + lk[k] + "'/'" + rk[k] + "'",
                     " has dtype ", lcols.back().dtype().to_string(), " in the left frame but ",
                     rcols.back().dtype().to_string(), " in the right frame");
  }
  relational::KeyColumns kl(lcols, lk, op), kr(rcols, rk, op);
  const JoinHow how = o.how;
  const bool outer = how == JoinHow::Outer;
  const bool build_right = right.num_rows() <= left.num_rows();
  relational::JoinIds j = build_right ? relational::join_ids(kr, kl, outer, op) : relational::join_ids(kl, kr, outer, op);
  const relational::Vec<int32_t>& lid = build_right ? j.probe_ids : j.build_ids;
  const relational::Vec<int32_t>& rid = build_right ? j.build_ids : j.probe_ids;
  const int64_t groups = j.num_groups;

  // ---- row pairs (Note [Join plan]) ----
  relational::Vec<int32_t> li, ri;  // output row -> left / right row, -1 for none
  int64_t n = 0;
  bool left_identity = false, right_identity = false;
  bool left_nulls = true, right_nulls = true;  // whether li / ri may hold -1
  switch (how) {
    case JoinHow::Inner:
    case JoinHow::Left: {
      const Drive d = drive(lid, group_rows(rid, groups), how == JoinHow::Left, li, ri);
      left_identity = d.mine_identity, left_nulls = false, right_nulls = d.unmatched;
      n = int64_t(ri.size());
      break;
    }
    case JoinHow::Right: {
      const Drive d = drive(rid, group_rows(lid, groups), true, ri, li);
      right_identity = d.mine_identity, right_nulls = false, left_nulls = d.unmatched;
      n = int64_t(li.size());
      break;
    }
    case JoinHow::Outer: {
      const Csr lg = group_rows(lid, groups), rg = group_rows(rid, groups);
      // The distinct keys, in ascending order.
      const auto& bk = build_right ? kr : kl;
      const auto& pk = build_right ? kl : kr;
      std::vector<relational::SortKey> sk;
      for (size_t k = 0; k < lk.size(); ++k) {
        Column keys = relational::concat(
            {relational::take_trusted(bk.columns()[k], j.build_first.data(), int64_t(j.build_first.size()), false),
             relational::take_trusted(pk.columns()[k], j.probe_first.data(), int64_t(j.probe_first.size()), false)},
            op);
        sk.push_back({keys, lk[k], true, false});
      }
      const auto order = relational::sort_indices(sk, op);
      for (int64_t g : order) {
        const int64_t nl = lg.count(int32_t(g)), nr = rg.count(int32_t(g));
        const int32_t* lrows = lg.rows.data() + lg.offsets[size_t(g)];
        const int32_t* rrows = rg.rows.data() + rg.offsets[size_t(g)];
        if (nl == 0) {
          for (int64_t b = 0; b < nr; ++b) li.push_back(-1), ri.push_back(rrows[b]);
          continue;
        }
        for (int64_t a = 0; a < nl; ++a) {
          if (nr == 0) li.push_back(lrows[a]), ri.push_back(-1);
          for (int64_t b = 0; b < nr; ++b) li.push_back(lrows[a]), ri.push_back(rrows[b]);
        }
      }
      for (size_t r = 0; r < lid.size(); ++r)
        if (lid[r] < 0) li.push_back(int32_t(r)), ri.push_back(-1);
      for (size_t r = 0; r < rid.size(); ++r)
        if (rid[r] < 0) li.push_back(-1), ri.push_back(int32_t(r));
      n = int64_t(li.size());
      left_identity = n == left.num_rows() && relational::is_identity(li.data(), n);
      right_identity = n == right.num_rows() && relational::is_identity(ri.data(), n);
      break;
    }
  }

  // ---- output columns: left's (merged keys in place), then right's non-merged ones ----
  std::vector<bool> merged(lk.size());
  std::unordered_set<std::string> merged_names;
  for (size_t k = 0; k < lk.size(); ++k)
    if ((merged[k] = lk[k] == rk[k])) merged_names.insert(lk[k]);
  std::vector<std::string> lnames, rnames;
  for (const std::string& c : left.columns())
    if (!merged_names.count(c)) lnames.push_back(c);
  for (const std::string& c : right.columns())
    if (!merged_names.count(c)) rnames.push_back(c);
  const std::unordered_set<std::string> lset(lnames.begin(), lnames.end()), rset(rnames.begin(), rnames.end());

  const bool left_nullable = how == JoinHow::Right || outer, right_nullable = how == JoinHow::Left || outer;
  auto side_column = [&](const Column& c, const relational::Vec<int32_t>& rows, bool identity, bool nulls,
                         bool nullable) {
    Column out = identity ? c : relational::take_trusted(c, rows.data(), n, nulls);
    return nullable ? relational::as_nullable(out) : out;
  };

  std::vector<std::pair<std::string, Column>> out;
  std::unordered_set<std::string> seen;
  auto add = [&](std::string name, Column c) {
    EMBER_CHECK(seen.insert(name).second, "join: the output column '", name, "' appears twice (suffixes '",
                o.suffixes.first, "', '", o.suffixes.second, "')");
    out.emplace_back(std::move(name), std::move(c));
  };
  for (const std::string& c : left.columns()) {
    if (merged_names.count(c)) {
      const size_t k = size_t(std::find(lk.begin(), lk.end(), c) - lk.begin());
      if (how == JoinHow::Inner || how == JoinHow::Left) {
        add(c, side_column(left[c], li, left_identity, false, false));
      } else if (how == JoinHow::Right) {
        add(c, side_column(right[c], ri, right_identity, false, false));
      } else {
        // Outer: the left key where there is a left row, else the right one.
        const Column both = relational::concat({kl.columns()[k], kr.columns()[k]}, op);
        relational::Vec<int64_t> idx(static_cast<size_t>(n));
        const int64_t nl = left.num_rows();
        for (int64_t r = 0; r < n; ++r) idx[size_t(r)] = li[size_t(r)] >= 0 ? li[size_t(r)] : nl + ri[size_t(r)];
        add(c, relational::take_trusted(both, idx.data(), n, false));
      }
      continue;
    }
    add(rset.count(c) ? c + o.suffixes.first : c, side_column(left[c], li, left_identity, left_nulls, left_nullable));
  }
  for (const std::string& c : rnames)
    add(lset.count(c) ? c + o.suffixes.second : c,
        side_column(right[c], ri, right_identity, right_nulls, right_nullable));
  if (out.empty()) return DataFrame();
  return DataFrame(std::move(out));
}

}  // namespace

DataFrame DataFrame::join(const DataFrame& right, const std::vector<std::string>& on, std::string_view how,
                          const std::pair<std::string, std::string>& suffixes) const {
  JoinOptions o;
  o.how = parse_how(how);
  o.on = on;
  EMBER_CHECK(!on.empty(), "join: no key columns given");
  o.suffixes = suffixes;
  return join_frames(*this, right, o);
}

DataFrame DataFrame::join(const DataFrame& right, const JoinOptions& options) const {
  return join_frames(*this, right, options);
}

}  // namespace ember::frame
