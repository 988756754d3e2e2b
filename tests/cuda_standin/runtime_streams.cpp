// Streams and events of the stand-in runtime. Each stream is a FIFO queue
// drained by its own thread, which sleeps a random, seeded delay before each
// operation, so that streams interleave differently from one seed to the
// next and any ordering the host code forgot shows up as a wrong answer.
//
// Modelled (CUDA Runtime API, "Stream synchronization behavior"): the legacy
// NULL stream waits for all earlier work of blocking streams and they wait
// for its earlier work; streams made with cudaStreamNonBlocking do neither.
// An event captures the work enqueued on its stream when it is recorded;
// cudaStreamWaitEvent orders later work of a stream after it.
#include <chrono>
#include <cstdlib>
#include <new>

#include "runtime_state.h"

struct CUstream_st {
  std::shared_ptr<cuda_standin::detail::Stream> stream;
};

struct CUevent_st {
  bool timing = true;
  cuda_standin::detail::Dependency recorded{nullptr, 0};
  std::shared_ptr<std::chrono::steady_clock::time_point> at;
};

namespace cuda_standin::detail {
namespace {

bool satisfied(const Dependency& d) { return d.stream == nullptr || d.stream->completed >= d.sequence; }

bool ready(const Operation& op) {
  for (const Dependency& d : op.after) {
    if (!satisfied(d)) return false;
  }
  return true;
}

uint32_t draw_delay(Stream& s, uint32_t max_delay_us) {
  if (max_delay_us == 0 || (s.rng() & 1) == 0) return 0;
  return static_cast<uint32_t>(s.rng() % (uint64_t{max_delay_us} + 1));
}

void drain(std::shared_ptr<Stream> s) {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  for (;;) {
    rt.changed.wait(lock, [&] {
      return (s->queue.empty() && s->closing) || (!s->queue.empty() && ready(s->queue.front()));
    });
    if (s->queue.empty()) return;
    Operation op = std::move(s->queue.front());
    s->queue.pop_front();
    const uint32_t delay = draw_delay(*s, rt.settings.max_delay_us);
    lock.unlock();
    if (delay != 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(delay));
    } else {
      std::this_thread::yield();
    }
    op.work();
    lock.lock();
    ++s->completed;
    rt.changed.notify_all();
  }
}

Dependency everything_enqueued(const std::shared_ptr<Stream>& s) { return Dependency{s, s->enqueued}; }

}  // namespace

std::shared_ptr<Stream> make_stream(Runtime& rt, bool blocking, bool legacy) {
  auto s = std::make_shared<Stream>();
  s->blocking = blocking;
  s->legacy = legacy;
  s->rng.seed(rt.settings.seed * 0x9e3779b97f4a7c15ull + ++rt.streams_made);
  s->worker = std::thread(drain, s);
  return s;
}

std::shared_ptr<Stream> stream_of(cudaStream_t handle) {
  return handle == nullptr ? runtime().legacy : handle->stream;
}

uint64_t enqueue(Lock& lock, const std::shared_ptr<Stream>& stream, std::function<void()> work,
                 std::vector<Dependency> after) {
  (void)lock;
  Runtime& rt = runtime();
  if (stream->legacy) {
    for (const auto& other : rt.streams) {
      if (other->blocking) after.push_back(everything_enqueued(other));
    }
  } else if (stream->blocking) {
    after.push_back(everything_enqueued(rt.legacy));
  }
  stream->queue.push_back(Operation{std::move(after), std::move(work)});
  rt.changed.notify_all();
  return ++stream->enqueued;
}

void wait_for(Lock& lock, const Dependency& dependency) {
  runtime().changed.wait(lock, [&] { return satisfied(dependency); });
}

}  // namespace cuda_standin::detail

using namespace cuda_standin::detail;

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (stream == nullptr || (flags & ~unsigned{cudaStreamNonBlocking}) != 0) {
    return report(cudaErrorInvalidValue);
  }
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  auto s = make_stream(rt, (flags & cudaStreamNonBlocking) == 0, false);
  rt.streams.push_back(s);
  *stream = new CUstream_st{s};
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

// CUDA returns at once and releases the stream once its work is done; the
// stand-in waits for that here.
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr) return report(cudaErrorInvalidResourceHandle);
  Runtime& rt = runtime();
  std::shared_ptr<Stream> s = stream->stream;
  {
    Lock lock(rt.mutex);
    for (auto it = rt.streams.begin(); it != rt.streams.end(); ++it) {
      if (*it == s) {
        rt.streams.erase(it);
        break;
      }
    }
    s->closing = true;
    rt.changed.notify_all();
  }
  s->worker.join();
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  const std::shared_ptr<Stream> s = stream_of(stream);
  wait_for(lock, Dependency{s, s->enqueued});
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  std::vector<Dependency> all{everything_enqueued(rt.legacy)};
  for (const auto& s : rt.streams) all.push_back(everything_enqueued(s));
  for (const Dependency& d : all) wait_for(lock, d);
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  if (fn == nullptr) return report(cudaErrorInvalidValue);
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  enqueue(lock, stream_of(stream), [fn, user_data] { fn(user_data); });
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr || (flags & ~unsigned{cudaEventDisableTiming}) != 0) {
    return report(cudaErrorInvalidValue);
  }
  *event = new CUevent_st;
  (*event)->timing = (flags & cudaEventDisableTiming) == 0;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (event == nullptr) return report(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (event == nullptr) return report(cudaErrorInvalidResourceHandle);
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  const std::shared_ptr<Stream> s = stream_of(stream);
  auto at = std::make_shared<std::chrono::steady_clock::time_point>();
  const uint64_t sequence = enqueue(lock, s, [at] { *at = std::chrono::steady_clock::now(); });
  event->recorded = Dependency{s, sequence};
  event->at = at;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event == nullptr) return report(cudaErrorInvalidResourceHandle);
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  wait_for(lock, event->recorded);
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (event == nullptr) return report(cudaErrorInvalidResourceHandle);
  Lock lock(runtime().mutex);
  return satisfied(event->recorded) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr || start == nullptr || end == nullptr) return report(cudaErrorInvalidValue);
  if (!start->timing || !end->timing || start->at == nullptr || end->at == nullptr) {
    return report(cudaErrorInvalidResourceHandle);
  }
  Lock lock(runtime().mutex);
  if (!satisfied(start->recorded) || !satisfied(end->recorded)) return report(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(*end->at - *start->at).count();
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (event == nullptr || flags != 0) return report(cudaErrorInvalidValue);
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  if (event->recorded.stream != nullptr) enqueue(lock, stream_of(stream), [] {}, {event->recorded});
  return cudaSuccess;
}
