// unieval._core: the pybind11 extension under the Python package (python/unieval). Thin: each
// function converts its Python arguments, releases the GIL, calls the metrics / tasks / pipelines
// library exactly as `unieval score` and `unieval eval` do, and returns plain Python values
// (dicts, lists, floats). The drop-in APIs (sacrebleu, rouge_scorer, ...) are the pure-Python
// modules beside it. unieval::InputError becomes ValueError with the CLI's message (what() is
// the text the CLI prints after "unieval: error: ").
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/build_info.h"
#include "core/error.h"
#include "core/heap.h"
#include "metrics/bleu.h"
#include "metrics/bleu_compat.h"
#include "metrics/chrf.h"
#include "metrics/coqa.h"
#include "metrics/distinct.h"
#include "metrics/entropy.h"
#include "metrics/glue.h"
#include "metrics/meteor.h"
#include "metrics/nist.h"
#include "metrics/rouge.h"
#include "metrics/rouge_score.h"
#include "metrics/sacrebleu_significance.h"
#include "metrics/squad.h"
#include "metrics/ter.h"
#include "pipelines/evaluate.h"
#include "results/run_result.h"
#include "unieval_version.h"

namespace py = pybind11;
namespace m = unieval::metrics;
using Lines = std::vector<std::string>;
using Streams = std::vector<std::vector<std::string>>;

// Lists of str arrive here by the ten thousand: a list or tuple of str is read straight from its
// item array (one PyUnicode_AsUTF8AndSize per item, no iterator or per-item caster); any other
// iterable goes through pybind11's generic sequence caster. Anything that is not str fails the
// overload as before (the Python modules check their arguments' types first).
namespace pybind11::detail {
template <>
struct type_caster<std::vector<std::string>> {
  PYBIND11_TYPE_CASTER(std::vector<std::string>, const_name("List[str]"));
  bool load(handle src, bool convert) {
    if (!src || PyUnicode_Check(src.ptr()) || PyBytes_Check(src.ptr())) return false;
    if (PyList_Check(src.ptr()) || PyTuple_Check(src.ptr())) {
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(src.ptr());
      PyObject** items = PySequence_Fast_ITEMS(src.ptr());
      value.clear();
      value.reserve(static_cast<size_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!PyUnicode_Check(items[i])) return false;
        Py_ssize_t size = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(items[i], &size);
        if (!utf8) {  // a lone surrogate: not UTF-8
          PyErr_Clear();
          return false;
        }
        value.emplace_back(utf8, static_cast<size_t>(size));
      }
      return true;
    }
    list_caster<std::vector<std::string>, std::string> generic;
    if (!generic.load(src, convert)) return false;
    value = static_cast<std::vector<std::string>&&>(std::move(generic));
    return true;
  }
  static handle cast(const std::vector<std::string>& src, return_value_policy policy,
                     handle parent) {
    return list_caster<std::vector<std::string>, std::string>::cast(src, policy, parent);
  }
};
}  // namespace pybind11::detail

namespace {

// Streams must be as long as hyps (the CLI's check on files, with the same wording).
void check_streams(const Lines& hyps, const Streams& refs, const char* what) {
  if (refs.empty())
    throw unieval::InputError(std::string(what) + ": at least one reference stream is required");
  for (size_t k = 0; k < refs.size(); ++k)
    if (refs[k].size() != hyps.size())
      throw unieval::InputError("reference stream " + std::to_string(k) + " has " +
                                std::to_string(refs[k].size()) +
                                " segments but the hypotheses have " + std::to_string(hyps.size()));
}

py::dict bleu_dict(const m::BleuScore& s) {
  py::dict d;
  d["score"] = s.score;
  d["counts"] = s.counts;
  d["totals"] = s.totals;
  d["precisions"] = s.precisions;
  d["bp"] = s.bp;
  d["sys_len"] = s.sys_len;
  d["ref_len"] = s.ref_len;
  d["signature"] = s.signature;
  d["formatted"] = s.format();
  return d;
}

py::object json_to_py(const std::string& dumped) {
  // Leaked on purpose: a static py::object would be released by the C++ exit handlers after the
  // interpreter has finalized (without the GIL: "Fatal Python error: PyThreadState_Get").
  static const py::handle loads = py::object(py::module_::import("json").attr("loads")).release();
  return loads(dumped);
}

template <class J>
std::string dump(const J& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// METEOR scorers are expensive to build (synonym and paraphrase tables): one per option set.
struct MeteorHandle {
  std::unique_ptr<m::MeteorScorer> scorer;
};

py::dict meteor_stats_dict(const m::MeteorStats& s) {
  py::dict d;
  d["precision"] = s.precision;
  d["recall"] = s.recall;
  d["f1"] = s.f1;
  d["fmean"] = s.fmean;
  d["fragmentation_penalty"] = s.fragmentation_penalty;
  d["score"] = s.score;
  d["test_length"] = s.test_length;
  d["reference_length"] = s.reference_length;
  d["chunks"] = s.chunks;
  d["test_word_matches"] = s.test_word_matches;
  d["reference_word_matches"] = s.reference_word_matches;
  d["stats"] = s.to_string();
  return d;
}

m::MeteorNormalize parse_normalize(const std::string& v) {
  if (v == "none" || v.empty()) return m::MeteorNormalize::kNone;
  if (v == "lower") return m::MeteorNormalize::kLower;
  if (v == "norm") return m::MeteorNormalize::kNorm;
  if (v == "norm-nopunct" || v == "nopunct") return m::MeteorNormalize::kNormNoPunct;
  throw unieval::InputError("normalize: '" + v + "' (none, lower, norm or norm-nopunct)");
}

// sacreBLEU TER's options from the Python keyword arguments.
m::TerOptions ter_options(bool normalized, bool no_punct, bool asian_support, bool case_sensitive) {
  m::TerOptions o;
  o.normalized = normalized;
  o.no_punct = no_punct;
  o.asian_support = asian_support;
  o.case_sensitive = case_sensitive;
  return o;
}

// ---- BLEU (sacreBLEU and the other implementations) ---------------------------------------
void bind_bleu(py::module_& mod) {
  mod.def(
      "bleu",
      [](const Lines& hyps, const Streams& refs, const std::string& tokenize,
         const std::string& smooth, std::optional<double> smooth_value, bool lowercase,
         int max_order, bool effective_order, std::optional<std::string> missing_marker,
         bool sentence, int threads) -> py::object {
        m::BleuOptions o;
        o.tokenize = m::parse_bleu_tokenize(tokenize);
        o.smooth = m::parse_bleu_smooth(smooth);
        o.smooth_value = smooth_value;
        o.lowercase = lowercase;
        if (max_order < 1) throw unieval::InputError("max_ngram_order must be >= 1");
        o.max_order = max_order;
        o.effective_order = effective_order;
        o.ref_missing_marker = std::move(missing_marker);
        o.threads = threads;
        if (sentence) {
          std::vector<m::BleuScore> all;
          {
            py::gil_scoped_release nogil;
            check_streams(hyps, refs, "BLEU");
            all = m::sentence_bleu(hyps, refs, o);
          }
          py::list out;
          for (const auto& s : all) out.append(bleu_dict(s));
          return std::move(out);
        }
        m::BleuScore s;
        {
          py::gil_scoped_release nogil;
          check_streams(hyps, refs, "BLEU");
          s = m::corpus_bleu(hyps, refs, o);
        }
        return bleu_dict(s);
      },
      py::arg("hyps"), py::arg("refs"), py::arg("tokenize") = "13a",
      py::arg("smooth_method") = "exp", py::arg("smooth_value") = py::none(),
      py::arg("lowercase") = false, py::arg("max_ngram_order") = 4,
      py::arg("effective_order") = false, py::arg("missing_marker") = py::none(),
      py::arg("sentence") = false, py::arg("threads") = 0,
      "sacreBLEU 2.6.0 BLEU (metrics/bleu.h): a dict, or one per segment with sentence=True");

  mod.def(
      "bleu_from_stats",
      [](const std::vector<int64_t>& correct, const std::vector<int64_t>& total, int64_t sys_len,
         int64_t ref_len, const std::string& smooth, std::optional<double> smooth_value,
         bool effective_order, int max_order) {
        if (max_order < 1) throw unieval::InputError("max_ngram_order must be >= 1");
        if (correct.size() != total.size() || static_cast<int>(correct.size()) < max_order)
          throw unieval::InputError("compute_bleu: correct and total need max_ngram_order (" +
                                    std::to_string(max_order) + ") counts each, got " +
                                    std::to_string(correct.size()) + " and " +
                                    std::to_string(total.size()));
        m::BleuOptions o;
        o.smooth = m::parse_bleu_smooth(smooth);
        o.smooth_value = smooth_value;
        o.effective_order = effective_order;
        o.max_order = max_order;
        m::BleuStats st;
        st.sys_len = sys_len;
        st.ref_len = ref_len;
        st.correct.assign(correct.begin(), correct.begin() + max_order);
        st.total.assign(total.begin(), total.begin() + max_order);
        return bleu_dict(m::compute_bleu(st, o));
      },
      py::arg("correct"), py::arg("total"), py::arg("sys_len"), py::arg("ref_len"),
      py::arg("smooth_method") = "none", py::arg("smooth_value") = py::none(),
      py::arg("effective_order") = false, py::arg("max_ngram_order") = 4,
      "sacreBLEU 2.6.0 BLEU.compute_bleu: the score of sufficient statistics (metrics/bleu.h "
      "compute_bleu)");

  mod.def(
      "bleu_signature",
      [](int nrefs, const std::string& tokenize, const std::string& smooth, bool lowercase,
         bool effective_order, std::optional<double> smooth_value) {
        m::BleuOptions o;
        o.tokenize = m::parse_bleu_tokenize(tokenize);
        o.smooth = m::parse_bleu_smooth(smooth);
        o.smooth_value = smooth_value;
        o.lowercase = lowercase;
        o.effective_order = effective_order;
        return o.signature(nrefs);
      },
      py::arg("nrefs"), py::arg("tokenize") = "13a", py::arg("smooth_method") = "exp",
      py::arg("lowercase") = false, py::arg("effective_order") = false,
      py::arg("smooth_value") = py::none());

  mod.def(
      "bleu_tokenize",
      [](const std::string& line, const std::string& tokenize, bool lowercase) {
        m::BleuOptions o;
        o.tokenize = m::parse_bleu_tokenize(tokenize);
        o.lowercase = lowercase;
        return m::bleu_tokenize(line, o);
      },
      py::arg("line"), py::arg("tokenize") = "13a", py::arg("lowercase") = false);
}

// ---- sacreBLEU chrF / chrF++ ------------------------------------------------------------
void bind_chrf(py::module_& mod) {
  mod.def(
      "chrf",
      [](const Lines& hyps, const Streams& refs, int char_order, int word_order, double beta,
         bool lowercase, bool eps_smoothing, bool whitespace, bool sentence,
         int threads) -> py::object {
        m::ChrfOptions o;
        o.whitespace = whitespace;
        if (char_order < 1) throw unieval::InputError("char_order must be >= 1");
        if (word_order < 0) throw unieval::InputError("word_order must be >= 0");
        o.char_order = char_order;
        o.word_order = word_order;
        o.beta = beta;
        o.lowercase = lowercase;
        o.eps_smoothing = eps_smoothing;
        o.threads = threads;
        auto as_dict = [](const m::ChrfScore& s) {
          py::dict d;
          d["score"] = s.score;
          d["stats"] = s.stats;
          d["signature"] = s.signature;
          return d;
        };
        if (sentence) {
          std::vector<m::ChrfScore> all;
          {
            py::gil_scoped_release nogil;
            check_streams(hyps, refs, "chrF");
            all = m::sentence_chrf(hyps, refs, o);
          }
          py::list out;
          for (const auto& s : all) out.append(as_dict(s));
          return std::move(out);
        }
        m::ChrfScore s;
        {
          py::gil_scoped_release nogil;
          check_streams(hyps, refs, "chrF");
          s = m::corpus_chrf(hyps, refs, o);
        }
        return as_dict(s);
      },
      py::arg("hyps"), py::arg("refs"), py::arg("char_order") = 6, py::arg("word_order") = 0,
      py::arg("beta") = 2.0, py::arg("lowercase") = false, py::arg("eps_smoothing") = false,
      py::arg("whitespace") = false, py::arg("sentence") = false, py::arg("threads") = 0,
      "sacreBLEU 2.6.0 chrF / chrF++ (metrics/chrf.h)");

  mod.def(
      "chrf_signature",
      [](int nrefs, int char_order, int word_order, double beta, bool lowercase, bool eps_smoothing,
         bool whitespace) {
        m::ChrfOptions o;
        o.whitespace = whitespace;
        o.char_order = char_order;
        o.word_order = word_order;
        o.beta = beta;
        o.lowercase = lowercase;
        o.eps_smoothing = eps_smoothing;
        return o.signature(nrefs);
      },
      py::arg("nrefs"), py::arg("char_order") = 6, py::arg("word_order") = 0, py::arg("beta") = 2.0,
      py::arg("lowercase") = false, py::arg("eps_smoothing") = false,
      py::arg("whitespace") = false);
}

// ---- TER (sacreBLEU 2.6.0) ----------------------------------------------------------------
void bind_ter(py::module_& mod) {
  mod.def(
      "ter",
      [](const Lines& hyps, const Streams& refs, bool normalized, bool no_punct, bool asian_support,
         bool case_sensitive, bool sentence, int threads) -> py::object {
        m::TerOptions o = ter_options(normalized, no_punct, asian_support, case_sensitive);
        o.threads = threads;
        auto as_dict = [](const m::TerScore& s) {
          py::dict d;
          d["score"] = s.score;
          d["num_edits"] = s.num_edits;
          d["ref_length"] = s.ref_length;
          d["signature"] = s.signature;
          return d;
        };
        if (sentence) {
          std::vector<m::TerScore> all;
          {
            py::gil_scoped_release nogil;
            check_streams(hyps, refs, "TER");
            all = m::sentence_ter(hyps, refs, o);
          }
          py::list out;
          for (const auto& s : all) out.append(as_dict(s));
          return std::move(out);
        }
        m::TerScore s;
        {
          py::gil_scoped_release nogil;
          check_streams(hyps, refs, "TER");
          s = m::corpus_ter(hyps, refs, o);
        }
        return as_dict(s);
      },
      py::arg("hyps"), py::arg("refs"), py::arg("normalized") = false, py::arg("no_punct") = false,
      py::arg("asian_support") = false, py::arg("case_sensitive") = false,
      py::arg("sentence") = false, py::arg("threads") = 0, "sacreBLEU 2.6.0 TER (metrics/ter.h)");
  mod.def(
      "ter_signature",
      [](int nrefs, bool normalized, bool no_punct, bool asian_support, bool case_sensitive) {
        return ter_options(normalized, no_punct, asian_support, case_sensitive).signature(nrefs);
      },
      py::arg("nrefs"), py::arg("normalized") = false, py::arg("no_punct") = false,
      py::arg("asian_support") = false, py::arg("case_sensitive") = false);
  mod.def(
      "tercom_tokenize",
      [](const std::string& sent, bool normalized, bool no_punct, bool asian_support,
         bool case_sensitive) {
        return m::tercom_tokenize(sent,
                                  ter_options(normalized, no_punct, asian_support, case_sensitive));
      },
      py::arg("sent"), py::arg("normalized") = false, py::arg("no_punct") = false,
      py::arg("asian_support") = false, py::arg("case_sensitive") = false,
      "sacreBLEU's TercomTokenizer(...)(sent)");
}

// ---- sacreBLEU significance (metrics/sacrebleu_significance.h) -----------------------------
void bind_significance(py::module_& mod) {
  // A Resampler is one metric's options; its statistics are StatsMatrix objects. The random
  // draws come from numpy (the Python side); arrays travel through the buffer protocol.
  py::class_<m::StatsMatrix>(mod, "SegmentStats")
      .def_property_readonly("rows", [](const m::StatsMatrix& s) { return s.rows; })
      .def_property_readonly("cols", [](const m::StatsMatrix& s) { return s.cols; })
      .def("__len__", [](const m::StatsMatrix& s) { return s.rows; })
      .def("tolist", [](const m::StatsMatrix& s) {
        py::list out;
        for (size_t i = 0; i < s.rows; ++i) {
          py::list row;
          for (size_t j = 0; j < s.cols; ++j) row.append(s.row(i)[j]);
          out.append(row);
        }
        return out;
      });
  // BLEU references tokenised once for several systems (BLEU._prepare_references).
  py::class_<m::BleuReferences, std::shared_ptr<m::BleuReferences>>(mod, "BleuReferences")
      .def_property_readonly("segments", &m::BleuReferences::segments)
      .def_property_readonly("streams", &m::BleuReferences::streams);
  py::class_<m::ResampleMetric>(mod, "Resampler")
      .def(
          "prepare_references",
          [](const m::ResampleMetric& r, const Streams& refs) {
            if (r.metric != m::StatsMetric::kBleu)
              throw py::value_error("prepare_references: BLEU only");
            py::gil_scoped_release nogil;
            if (refs.empty())
              throw unieval::InputError("significance: at least one reference stream is required");
            check_streams(refs[0], refs, "significance");
            return std::make_shared<m::BleuReferences>(refs, r.bleu);
          },
          py::arg("refs"))
      .def(
          "segment_stats",
          [](const m::ResampleMetric& r, const Lines& hyps, const m::BleuReferences& refs) {
            py::gil_scoped_release nogil;
            if (refs.segments() != hyps.size())
              throw unieval::InputError("significance: the references have " +
                                        std::to_string(refs.segments()) +
                                        " segments, the hypotheses " + std::to_string(hyps.size()));
            return m::resample_segment_stats(r, hyps, refs);
          },
          py::arg("hyps"), py::arg("refs"))
      .def(
          "segment_stats",
          [](const m::ResampleMetric& r, const Lines& hyps, const Streams& refs) {
            py::gil_scoped_release nogil;
            check_streams(hyps, refs, "significance");
            return m::resample_segment_stats(r, hyps, refs);
          },
          py::arg("hyps"), py::arg("refs"))
      .def("corpus",
           [](const m::ResampleMetric& r, const m::StatsMatrix& st) {
             // (score, column sums): sum_of_lists then _compute_score_from_stats
             std::vector<double> sums = m::python_sums(st);
             double score =
                 m::score_of_sums(r, sums.data(), sums.size(), m::SumArithmetic::kPython);
             return py::make_tuple(score, sums);
           })
      .def("bootstrap",
           [](const m::ResampleMetric& r, const m::StatsMatrix& st, const py::buffer& idx) {
             py::buffer_info b = idx.request();
             if (b.itemsize != 8 || (b.format != "l" && b.format != "q") || b.ndim != 2 ||
                 static_cast<size_t>(b.shape[1]) != st.rows || b.strides[1] != 8 ||
                 b.strides[0] != 8 * b.shape[1])
               throw py::value_error(
                   "bootstrap: a C-contiguous int64 array of shape (samples, segments)");
             std::vector<double> out;
             {
               py::gil_scoped_release nogil;
               out = m::bootstrap_scores(r, st, static_cast<const int64_t*>(b.ptr),
                                         static_cast<size_t>(b.shape[0]));
             }
             return py::bytes(reinterpret_cast<const char*>(out.data()),
                              out.size() * sizeof(double));
           })
      .def("ar", [](const m::ResampleMetric& r, const m::StatsMatrix& bl, const m::StatsMatrix& sys,
                    const py::buffer& mask) {
        py::buffer_info b = mask.request();
        if (b.itemsize != 1 || b.ndim != 2 || static_cast<size_t>(b.shape[1]) != bl.rows ||
            b.strides[1] != 1 || b.strides[0] != b.shape[1])
          throw py::value_error("ar: a C-contiguous bool array of shape (trials, segments)");
        m::ArScores out;
        {
          py::gil_scoped_release nogil;
          out = m::ar_scores(r, bl, sys, static_cast<const uint8_t*>(b.ptr),
                             static_cast<size_t>(b.shape[0]));
        }
        auto bytes = [](const std::vector<double>& v) {
          return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
        };
        return py::make_tuple(bytes(out.a), bytes(out.b));
      });
}

// The Resampler factories, one per metric (BLEU, chrF, TER).
void bind_resamplers(py::module_& mod) {
  mod.def(
      "bleu_resampler",
      [](const std::string& tokenize, const std::string& smooth, std::optional<double> smooth_value,
         bool lowercase, int max_order, bool effective_order,
         std::optional<std::string> missing_marker, int threads) {
        m::ResampleMetric r;
        r.metric = m::StatsMetric::kBleu;
        r.bleu.tokenize = m::parse_bleu_tokenize(tokenize);
        r.bleu.smooth = m::parse_bleu_smooth(smooth);
        r.bleu.smooth_value = smooth_value;
        r.bleu.lowercase = lowercase;
        if (max_order < 1) throw unieval::InputError("max_ngram_order must be >= 1");
        r.bleu.max_order = max_order;
        r.bleu.effective_order = effective_order;
        r.bleu.ref_missing_marker = std::move(missing_marker);
        r.bleu.threads = threads;
        r.threads = threads;
        return r;
      },
      py::arg("tokenize") = "13a", py::arg("smooth_method") = "exp",
      py::arg("smooth_value") = py::none(), py::arg("lowercase") = false,
      py::arg("max_ngram_order") = 4, py::arg("effective_order") = false,
      py::arg("missing_marker") = py::none(), py::arg("threads") = 0);
  mod.def(
      "chrf_resampler",
      [](int char_order, int word_order, double beta, bool lowercase, bool eps_smoothing,
         bool whitespace, int threads) {
        m::ResampleMetric r;
        r.metric = m::StatsMetric::kChrf;
        if (char_order < 1) throw unieval::InputError("char_order must be >= 1");
        if (word_order < 0) throw unieval::InputError("word_order must be >= 0");
        r.chrf.char_order = char_order;
        r.chrf.word_order = word_order;
        r.chrf.beta = beta;
        r.chrf.lowercase = lowercase;
        r.chrf.eps_smoothing = eps_smoothing;
        r.chrf.whitespace = whitespace;
        r.chrf.threads = threads;
        r.threads = threads;
        return r;
      },
      py::arg("char_order") = 6, py::arg("word_order") = 0, py::arg("beta") = 2.0,
      py::arg("lowercase") = false, py::arg("eps_smoothing") = false, py::arg("whitespace") = false,
      py::arg("threads") = 0);
  mod.def(
      "ter_resampler",
      [](bool normalized, bool no_punct, bool asian_support, bool case_sensitive, int threads) {
        m::ResampleMetric r;
        r.metric = m::StatsMetric::kTer;
        r.ter = ter_options(normalized, no_punct, asian_support, case_sensitive);
        r.ter.threads = threads;
        r.threads = threads;
        return r;
      },
      py::arg("normalized") = false, py::arg("no_punct") = false, py::arg("asian_support") = false,
      py::arg("case_sensitive") = false, py::arg("threads") = 0);
}

// ---- rouge-score ------------------------------------------------------------------------
void bind_rouge_score(py::module_& mod) {
  mod.def(
      "rouge_score_pairs",
      [](py::handle targets, const Lines& predictions, const Lines& types, bool stem) {
        // targets: one item per pair, a str (score) or a list of str (score_multi).
        if (!PyList_Check(targets.ptr()) && !PyTuple_Check(targets.ptr()))
          throw py::type_error("`targets` should be a list of strings or of lists of strings");
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(targets.ptr());
        PyObject** items = PySequence_Fast_ITEMS(targets.ptr());
        std::vector<Lines> per_pair(static_cast<size_t>(n));
        py::detail::make_caster<Lines> conv;
        for (Py_ssize_t i = 0; i < n; ++i) {
          if (PyUnicode_Check(items[i])) {
            Py_ssize_t size = 0;
            const char* utf8 = PyUnicode_AsUTF8AndSize(items[i], &size);
            if (!utf8) throw py::error_already_set();
            per_pair[i].emplace_back(utf8, static_cast<size_t>(size));
          } else if (conv.load(items[i], true)) {
            per_pair[i] = py::detail::cast_op<Lines&&>(std::move(conv));
          } else {
            throw py::type_error("`targets` item " + std::to_string(i) +
                                 " is neither a string nor a list of strings");
          }
        }
        m::RougeScoreOptions o;
        o.types = types;
        o.stem = stem;
        std::vector<m::RougeScoreValue> all;
        {
          py::gil_scoped_release nogil;
          all = m::rouge_score_batch(per_pair, predictions, o);
        }
        // [pair][type] (P, R, F) as packed doubles: the Python side builds the Score tuples of a
        // pair when it is read (unieval.rouge_scorer.BatchScores).
        std::string bytes(all.size() * 3 * sizeof(double), '\0');
        double* d = reinterpret_cast<double*>(bytes.data());
        for (size_t i = 0; i < all.size(); ++i) {
          d[3 * i] = all[i].precision;
          d[3 * i + 1] = all[i].recall;
          d[3 * i + 2] = all[i].fmeasure;
        }
        return py::bytes(bytes);
      },
      py::arg("targets"), py::arg("predictions"), py::arg("types"), py::arg("use_stemmer") = false,
      "rouge-score 0.1.2 RougeScorer.score / score_multi of every pair: packed doubles "
      "[pair][type][P, R, F]");

  mod.def(
      "streams_info",
      [](py::handle streams) {
        // sacreBLEU's nrefs of reference streams with None for a missing reference: the number of
        // streams, or -1 ("var") when segments have different numbers of references; and whether
        // any reference is None.
        if (!PyList_Check(streams.ptr())) throw py::type_error("streams_info: a list of lists");
        const Py_ssize_t k = PyList_GET_SIZE(streams.ptr());
        std::vector<int> per_segment;
        bool any_none = false;
        for (Py_ssize_t s = 0; s < k; ++s) {
          PyObject* stream = PyList_GET_ITEM(streams.ptr(), s);
          if (!PyList_Check(stream)) throw py::type_error("streams_info: a list of lists");
          const Py_ssize_t n = PyList_GET_SIZE(stream);
          if (per_segment.size() < static_cast<size_t>(n))
            per_segment.resize(static_cast<size_t>(n), 0);
          for (Py_ssize_t i = 0; i < n; ++i) {
            if (PyList_GET_ITEM(stream, i) == Py_None)
              any_none = true;
            else
              ++per_segment[static_cast<size_t>(i)];
          }
        }
        int nrefs = static_cast<int>(k);
        if (any_none && !per_segment.empty()) {
          nrefs = per_segment[0];
          for (int c : per_segment)
            if (c != nrefs) nrefs = -1;
        }
        return py::make_tuple(nrefs, any_none);
      },
      py::arg("streams"));
}

// ---- ROUGE-1.5.5 ------------------------------------------------------------------------
void bind_rouge155(py::module_& mod) {
  mod.def(
      "rouge155",
      [](const std::vector<std::pair<Lines, std::vector<Lines>>>& corpus, const py::dict& fields,
         const std::string& rouge_data) {
        m::Rouge155Options o;
        for (auto item : fields) {
          std::string k = py::str(item.first);
          py::handle v = item.second;
          if (k == "max_n")
            o.max_n = v.cast<int>();
          else if (k == "lcs")
            o.lcs = v.cast<bool>();
          else if (k == "wlcs_weight")
            o.wlcs_weight = v.cast<std::string>();
          else if (k == "skip_distance")
            o.skip_distance = v.cast<std::string>();
          else if (k == "skip_unigram")
            o.skip_unigram = v.cast<bool>();
          else if (k == "skip_both")
            o.skip_both = v.cast<bool>();
          else if (k == "stem")
            o.stem = v.cast<bool>();
          else if (k == "use_exceptions")
            o.use_exceptions = v.cast<bool>();
          else if (k == "remove_stopwords")
            o.remove_stopwords = v.cast<bool>();
          else if (k == "length_limit")
            o.length_limit = v.cast<long>();
          else if (k == "byte_limit")
            o.byte_limit = v.cast<long>();
          else if (k == "formula") {
            std::string f = v.cast<std::string>();
            if (f != "A" && f != "B")
              throw unieval::InputError("-f must be A or B, not '" + f + "'");
            o.formula = f[0];
          } else if (k == "alpha")
            o.alpha = v.cast<double>();
          else if (k == "confidence")
            o.confidence = v.cast<double>();
          else if (k == "resamples")
            o.resamples = v.cast<int>();
          else if (k == "threads")
            o.threads = v.cast<int>();
          else
            throw unieval::InputError("rouge155: unknown option '" + k + "'");
        }
        std::vector<m::RougeInstance> instances;
        instances.reserve(corpus.size());
        for (const auto& [peer, models] : corpus) instances.push_back({peer, models});
        m::Rouge155Result r;
        std::string report;
        {
          py::gil_scoped_release nogil;
          o.validate();
          m::RougeResourceFlags flags;
          flags.data = "rouge_data=DIR";
          flags.no_exceptions = "use_exceptions=False";
          m::RougeResources res = m::find_rouge_resources(rouge_data, o, flags);
          r = m::rouge155(instances, o, res);
          report = m::rouge155_report(r, o, false);
        }
        auto triple = [](const m::RougePRF& v) { return py::make_tuple(v.r, v.p, v.f); };
        py::list variants;
        for (const auto& v : r.variants) {
          py::dict d;
          d["name"] = v.name;
          d["average"] = triple(v.average);
          d["ci_low"] = triple(v.ci_low);
          d["ci_high"] = triple(v.ci_high);
          py::list inst;
          for (const auto& x : v.instances) inst.append(triple(x));
          d["instances"] = inst;
          variants.append(d);
        }
        py::dict out;
        out["variants"] = variants;
        out["signature"] = r.signature;
        out["report"] = report;
        return out;
      },
      py::arg("corpus"), py::arg("options"), py::arg("rouge_data") = "",
      "ROUGE-1.5.5 (metrics/rouge.h): corpus = [(peer sentences, [model sentences, ...]), ...]");
}

// ---- METEOR -----------------------------------------------------------------------------
void bind_meteor(py::module_& mod) {
  py::class_<MeteorHandle>(mod, "MeteorScorer")
      .def(py::init([](const std::string& task, const std::vector<double>& params,
                       const Lines& modules, const std::vector<double>& weights,
                       const std::string& normalize, int beam_size, const std::string& data_dir,
                       const std::string& paraphrase_file, int threads) {
             m::MeteorOptions o;
             o.task = task;
             o.params = params;
             o.modules.clear();
             for (const auto& name : modules) o.modules.push_back(m::parse_meteor_module(name));
             o.weights = weights;
             o.normalize = parse_normalize(normalize);
             o.beam_size = beam_size;
             o.data_dir = m::meteor_data_dir(data_dir);
             o.paraphrase_file = paraphrase_file;
             o.threads = threads;
             auto h = std::make_unique<MeteorHandle>();
             py::gil_scoped_release nogil;
             h->scorer = std::make_unique<m::MeteorScorer>(o);
             return h;
           }),
           py::arg("task") = "rank", py::arg("params") = std::vector<double>{},
           py::arg("modules") = Lines{"exact", "stem", "synonym", "paraphrase"},
           py::arg("weights") = std::vector<double>{}, py::arg("normalize") = "none",
           py::arg("beam_size") = 40, py::arg("meteor_data") = "", py::arg("paraphrase_file") = "",
           py::arg("threads") = 0)
      .def("score",
           [](const MeteorHandle& h, const Lines& hyps, const Streams& refs) {
             m::MeteorResult r;
             {
               py::gil_scoped_release nogil;
               check_streams(hyps, refs, "METEOR");
               r = h.scorer->score(hyps, refs);
             }
             py::dict d = meteor_stats_dict(r.total);
             d["score"] = r.score;
             d["segment_scores"] = r.segment_scores;
             py::list segs;
             for (const auto& s : r.segments) segs.append(s.to_string());
             d["segment_stats"] = segs;
             return d;
           })
      .def("signature", [](const MeteorHandle& h) { return h.scorer->options().signature(); })
      .def_property_readonly("params", [](const MeteorHandle& h) { return h.scorer->params(); })
      .def_property_readonly("weights", [](const MeteorHandle& h) { return h.scorer->weights(); });
}

// ---- NIST -------------------------------------------------------------------------------
void bind_nist(py::module_& mod) {
  mod.def(
      "nist",
      [](const Lines& hyps, const Streams& refs, const std::string& version, bool international,
         bool preserve_case, bool dstc7_writer) {
        m::NistOptions o;
        if (version == "14c" || version == "v14c")
          o.tokenization = m::text::MtevalTokenization::kV14c;
        else if (version == "13a" || version == "v13a")
          o.tokenization = m::text::MtevalTokenization::kV13a;
        else
          throw unieval::InputError("--nist-version: '" + version + "' (14c or 13a)");
        if (international) o.tokenization = m::text::MtevalTokenization::kIntl;
        o.preserve_case = preserve_case;
        o.dstc7_writer = dstc7_writer;
        m::NistScore s;
        {
          py::gil_scoped_release nogil;
          check_streams(hyps, refs, "NIST");
          s = m::mteval_nist(hyps, refs, o);
        }
        py::dict d;
        d["nist_cum"] = s.nist_cum;
        d["nist_ind"] = s.nist_ind;
        d["bleu_cum"] = s.bleu_cum;
        d["bleu_ind"] = s.bleu_ind;
        d["warnings"] = s.warnings;
        return d;
      },
      py::arg("hyps"), py::arg("refs"), py::arg("version") = "14c",
      py::arg("international") = false, py::arg("preserve_case") = false,
      py::arg("dstc7_writer") = true);

  mod.def(
      "nist_nltk",
      [](const Lines& hyps, const Streams& refs, int n) {
        if (n < 1) throw unieval::InputError("--max-order must be >= 1");
        m::NltkNistScore s;
        {
          py::gil_scoped_release nogil;
          check_streams(hyps, refs, "NIST");
          std::vector<std::vector<std::vector<std::string>>> split_refs;  // [segment][reference]
          for (const auto& seg : m::refs_by_segment(refs))
            split_refs.push_back(m::split_lines_py(seg));
          s = m::nltk_corpus_nist(m::split_lines_py(hyps), split_refs, n);
        }
        py::dict d;
        d["score"] = s.score;
        d["warning"] = s.warning ? py::object(py::str(*s.warning)) : py::object(py::none());
        return d;
      },
      py::arg("hyps"), py::arg("refs"), py::arg("n") = 5);
}

// ---- SQuAD / CoQA -----------------------------------------------------------------------
void bind_qa(py::module_& mod) {
  mod.def(
      "squad",
      [](const std::string& data, const std::string& preds, std::optional<std::string> na_probs,
         const std::string& version, double na_prob_thresh, bool allow_missing, int threads) {
        m::SquadOptions o;
        if (version == "auto" || version.empty())
          o.version = m::SquadVersion::kAuto;
        else if (version == "1.1" || version == "v1.1")
          o.version = m::SquadVersion::kV1_1;
        else if (version == "2.0" || version == "v2.0")
          o.version = m::SquadVersion::kV2_0;
        else
          throw unieval::InputError("--squad-version: '" + version + "' (auto, 1.1 or 2.0)");
        o.na_prob_thresh = na_prob_thresh;
        o.allow_missing = allow_missing;
        o.threads = threads;
        std::string out, signature;
        std::vector<std::string> missing;
        {
          py::gil_scoped_release nogil;
          m::SquadDataset ds = m::parse_squad_dataset(data, "dataset");
          m::SquadPredictions pr = m::parse_squad_predictions(preds, "predictions");
          std::optional<m::SquadNaProbs> na;
          if (na_probs) na = m::parse_squad_na_probs(*na_probs, "na_probs");
          m::SquadResult r = m::evaluate_squad(ds, pr, na ? &*na : nullptr, o);
          out = dump(r.to_json());
          signature = r.signature;
          missing = r.missing;
        }
        py::dict d;
        d["result"] = json_to_py(out);
        d["signature"] = signature;
        d["missing"] = missing;
        return d;
      },
      py::arg("data"), py::arg("predictions"), py::arg("na_probs") = py::none(),
      py::arg("version") = "auto", py::arg("na_prob_thresh") = 1.0,
      py::arg("allow_missing") = false, py::arg("threads") = 0,
      "official SQuAD v1.1 / v2.0 scripts (metrics/squad.h) on the JSON texts of the files");

  mod.def("squad_v1_exact_match",
          [](const std::string& p, const std::string& g) { return m::squad_v1_exact_match(p, g); });
  mod.def("squad_v1_f1",
          [](const std::string& p, const std::string& g) { return m::squad_v1_f1(p, g); });
  mod.def("squad_v2_compute_exact", [](const std::string& g, const std::string& p) {
    return m::squad_v2_compute_exact(g, p);
  });
  mod.def("squad_v2_compute_f1",
          [](const std::string& g, const std::string& p) { return m::squad_v2_compute_f1(g, p); });

  mod.def(
      "coqa",
      [](const std::string& data, const std::string& preds) {
        std::string rounded, full, table, signature;
        std::vector<double> em, f1;
        std::vector<std::string> missing;
        {
          py::gil_scoped_release nogil;
          m::CoqaDataset ds = m::parse_coqa_dataset(data, "dataset");
          m::CoqaPredictions pr = m::parse_coqa_predictions(preds, "predictions");
          m::CoqaResult r = m::evaluate_coqa(ds, pr);
          rounded = dump(r.to_json(true));
          full = dump(r.to_json(false));
          table = r.table();
          signature = r.signature;
          em = r.item_em;
          f1 = r.item_f1;
          missing = r.missing;
        }
        py::dict d;
        d["table"] = json_to_py(rounded);
        d["full"] = json_to_py(full);
        d["text"] = table;
        d["signature"] = signature;
        d["item_em"] = em;
        d["item_f1"] = f1;
        d["missing"] = missing;
        return d;
      },
      py::arg("data"), py::arg("predictions"), "official CoQA evaluate-v1.0.py (metrics/coqa.h)");

  mod.def(
      "coqa_turn",
      [](const Lines& golds, const std::string& pred) {
        m::CoqaTurnScore s = m::coqa_turn_score(golds, pred);
        return py::make_tuple(s.em, s.f1);
      },
      py::arg("gold_answers"), py::arg("prediction"));
}

// ---- GLUE -------------------------------------------------------------------------------
void bind_glue(py::module_& mod) {
  mod.def("glue_label_names",
          [](const std::string& task) { return m::glue_label_names(m::parse_glue_task(task)); });
  mod.def(
      "glue",
      [](const std::string& task, const std::vector<double>& labels,
         const std::vector<double>& preds) {
        std::string out, signature;
        std::vector<std::string> warnings;
        {
          py::gil_scoped_release nogil;
          m::GlueResult r = m::glue_compute_metrics(m::parse_glue_task(task), labels, preds);
          out = dump(r.to_json());
          signature = r.signature;
          warnings = r.warnings;
        }
        py::dict d;
        d["result"] = json_to_py(out);
        d["signature"] = signature;
        d["warnings"] = warnings;
        return d;
      },
      py::arg("task"), py::arg("labels"), py::arg("predictions"));
  mod.def(
      "glue_score",
      [](const std::string& task_metrics, bool mnli_matched_only) {
        m::GlueScoreOptions o;
        o.mnli = mnli_matched_only ? m::GlueMnliConvention::kMatchedOnly
                                   : m::GlueMnliConvention::kAverage;
        m::GlueScore s = m::glue_score(nlohmann::json::parse(task_metrics), o, "task_metrics");
        return json_to_py(dump(s.to_json()));
      },
      py::arg("task_metrics"), py::arg("mnli_matched_only") = false);
}

// ---- Distinct / Entropy -----------------------------------------------------------------
void bind_distinct(py::module_& mod) {
  mod.def(
      "distinct",
      [](const Lines& lines, const std::string& flavour, const std::vector<int>& orders,
         bool dstc7_clean) {
        m::DistinctOptions o;
        o.flavour = m::parse_distinct_flavour(flavour);
        o.orders = orders;
        o.dstc7_clean = dstc7_clean;
        std::string out;
        {
          py::gil_scoped_release nogil;
          out = dump(m::distinct(lines, o).to_json());
        }
        return json_to_py(out);
      },
      py::arg("lines"), py::arg("flavour") = "dstc7", py::arg("orders") = std::vector<int>{1, 2},
      py::arg("dstc7_clean") = false);
  mod.def(
      "entropy",
      [](const Lines& lines, const std::vector<int>& orders, bool dstc7_clean) {
        m::EntropyOptions o;
        o.orders = orders;
        o.dstc7_clean = dstc7_clean;
        std::string out;
        {
          py::gil_scoped_release nogil;
          out = dump(m::entropy(lines, o).to_json());
        }
        return json_to_py(out);
      },
      py::arg("lines"), py::arg("orders") = std::vector<int>{1, 2, 3, 4},
      py::arg("dstc7_clean") = false);
}

// ---- unieval eval -----------------------------------------------------------------------
void bind_eval(py::module_& mod) {
  mod.def(
      "evaluate",
      [](const std::string& task, const std::string& data, const std::string& pred,
         const std::string& split, const std::string& system,
         const std::map<std::string, std::string>& options, bool per_example, int bootstrap,
         unsigned long long seed, double ci_level) {
        unieval::tasks::EvalRequest req;
        req.task = task;
        req.data = data;
        req.pred = pred;
        req.split = split;
        req.system = system;
        req.options = options;
        req.per_example = per_example;
        req.bootstrap = bootstrap;
        req.seed = seed;
        req.ci_level = ci_level;
        std::string out;
        {
          py::gil_scoped_release nogil;
          out = dump(unieval::results::to_json(unieval::pipelines::evaluate(req)));
        }
        return json_to_py(out);
      },
      py::arg("task"), py::arg("data"), py::arg("pred"), py::arg("split") = "",
      py::arg("system") = "", py::arg("options") = std::map<std::string, std::string>{},
      py::arg("per_example") = false, py::arg("bootstrap") = 0, py::arg("seed") = 12345ULL,
      py::arg("ci_level") = 0.95, "unieval eval (pipelines/evaluate.h): the result JSON as a dict");
}

}  // namespace

PYBIND11_MODULE(_core, mod) {
  mod.doc() = "unieval's metrics library (C++), as the unieval Python package calls it";
  // The CLI's heap settings (core/heap.h), unless UNIEVAL_MALLOC_TUNING=0.
  if (const char* tune = std::getenv("UNIEVAL_MALLOC_TUNING"); !tune || std::string(tune) != "0")
    unieval::core::tune_heap_for_scoring();
  mod.attr("__version__") = UNIEVAL_VERSION;
  unieval::core::set_build_commit(unieval::build_stamp::commit());
  mod.attr("git_commit") = unieval::core::build_commit();

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const unieval::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  bind_bleu(mod);
  bind_chrf(mod);
  bind_ter(mod);
  bind_significance(mod);
  bind_resamplers(mod);
  bind_rouge_score(mod);
  bind_rouge155(mod);
  bind_meteor(mod);
  bind_nist(mod);
  bind_qa(mod);
  bind_glue(mod);
  bind_distinct(mod);
  bind_eval(mod);
}
