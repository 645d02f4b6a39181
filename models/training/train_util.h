#pragma once
// Small pieces the training loops share (models/training/trainer.cc fine-tuning, models/training/pretrainer.cc and
// models/training/pretrain_data.cc pre-training).
#include <cstdint>
#include <string>

namespace unieval::models {

// Derives a seed from (a, b) (splitmix64's finaliser over a mixed pair): every random stream of a
// run is seed_mix(seed, counter...), so a resumed run redraws exactly what it would have drawn.
inline uint64_t seed_mix(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The random streams of a run: each generator is seeded by seed_mix(seed, stream + i) or, per
// step, seed_mix(seed_mix(seed, step), stream + j). The values are part of every trained model
// and checkpoint (a resumed run redraws the same numbers): never renumber them.
inline constexpr uint64_t kEpochOrderStream = 0x1000;       // + epoch: fine-tuning batch order
inline constexpr uint64_t kMicroBatchDataStream = 0x2000;   // + j: fine-tuning masks and noise
inline constexpr uint64_t kFineTuneDropoutStream = 0x3000;  // + j: torch's generator (dropout)
inline constexpr uint64_t kDevLossStream = 0x4000;          // the dev loss's masks (no step)
inline constexpr uint64_t kPretrainDropoutStream = 0x5000;  // + j: torch's generator (dropout)
inline constexpr uint64_t kErnieGenNoiseStream = 0x6000;    // + j: ERNIE-GEN pre-training noise

// "1h02m", "3m05s", "42s" for progress lines ("?" when s is negative, NaN or absurd).
std::string format_duration(double s);

}  // namespace unieval::models
