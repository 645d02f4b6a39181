#pragma once
// Follows PyTorch (BSD-3-Clause) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// PyTorch state-dict files (`pytorch_model.bin`, written by `torch.save(model.state_dict(), f)`)
// read without Python: a small, bounded unpickler that understands exactly what a state dict holds
// and executes nothing. The layouts are those torch/serialization.py writes; the opcodes those
// CPython's pickle documents (pickletools); no code from either.
//
//   auto tensors = unieval::models::read_torch_state_dict("ckpt/pytorch_model.bin");
//   for (auto& [name, t] : tensors) std::cout << name << " " << t.sizes() << "\n";
//
// Formats (detected from the first bytes):
//   * zip (torch.save's default since PyTorch 1.6, also LibTorch's torch::pickle_save): a zip of
//     stored (uncompressed) entries "<archive>/data.pkl" (the pickled dict) and
//     "<archive>/data/<key>" (one raw little-endian storage per key); zip64 and compressed entries
//     are refused;
//   * legacy (`_use_new_zipfile_serialization=False`, PyTorch < 1.6; UniLM v1's own checkpoints):
//     five pickles back to back — magic number 0x1950a86a20f9469cfc6c, protocol 1001, sys info
//     (little_endian must be true), the dict, the sorted list of storage keys — then for each key an
//     int64 element count and the storage's bytes.
//
// The unpickler accepts protocols 2-5 and only these objects: None, bools, ints, floats, str,
// bytes-free tuples, lists, dicts, and these globals — collections.OrderedDict (called with no
// items; its BUILD state, the `_metadata` attribute, is ignored), torch._utils._rebuild_tensor_v2
// (storage, offset, size, stride, requires_grad, hooks[, metadata]), torch._utils._rebuild_parameter,
// torch.jit._pickle.restore_type_tag (identity), and storages torch.{Float,Double,Half,BFloat16,
// Long,Int,Short,Char,Byte,Bool}Storage through persistent ids ('storage', type, key, location,
// numel[, view]). Anything else (another global, an opcode outside this set, a storage not in the
// file, a view past its storage's end, a top level that is not a dict of str -> tensor,
// truncation, more than 64 nested levels or 10^7 objects) is an InputError naming the file. Tensors
// are returned as CPU copies in the stored dtype, keys in the file's order; non-tensor values
// (HF's `_metadata`, integers) are skipped.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace unieval::models {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Reads `path` (either format).
NamedTensors read_torch_state_dict(const std::string& path);
// Parses an in-memory image; `source` names it in errors.
NamedTensors parse_torch_state_dict(const std::string& bytes, const std::string& source);

}  // namespace unieval::models
