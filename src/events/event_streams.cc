#include "events/event_streams.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "core/time.h"

namespace docwright {
namespace {

using Clock = std::chrono::steady_clock;
using Deliver = std::function<void(std::optional<std::string>)>;

class ServerSentEvents final : public EventFraming {
 public:
  // `retry`: how long an EventSource waits before it reconnects.
  std::string Start() override { return "retry: 2000\n\n"; }
  std::string Event(const JobEvent& e) override {
    // EventJson escapes every line break, so the data is one line.
    std::string out = "id: " + std::to_string(e.sequence) + "\nevent: ";
    out += EventTypeName(e.type);
    out += "\ndata: ";
    out += EventJson(e);
    out += "\n\n";
    return out;
  }
  std::string Heartbeat() override { return ": keep-alive\n\n"; }
};

}  // namespace

std::unique_ptr<EventFraming> ServerSentEventFraming() {
  return std::make_unique<ServerSentEvents>();
}

// What the hub and its streams share; kept alive by both, so a stream that
// outlives the hub (its connection still closing) finds it stopped.
struct EventStreams::Core {
  struct Stream;

  Core(EventStore& e, AccessStore& k, EventStreamOptions o)
      : store(e), access(k), options(std::move(o)) {}

  void Run();
  // One round: reads for the streams that need it, heartbeats, lifetimes.
  // Returns when the next round is due.
  Clock::time_point Round() EXCLUDES(mu);
  // A round's read of one job's events: from the earliest its waiting streams
  // lack.
  struct Read {
    Scope scope;
    std::string job_id;
    int64_t after = 0;
  };
  // Deliveries to make once mu is released: a piece, or nullopt (the end).
  using Sends = std::vector<std::pair<Deliver, std::optional<std::string>>>;
  // A round's first part, under mu: ends the streams whose lifetime is over,
  // sends heartbeats, and lists the reads due. Returns when the next round is
  // due, `due` at the latest.
  Clock::time_point Survey(Clock::time_point now, Clock::time_point due, std::vector<Read>* reads,
                           Sends* sends) REQUIRES(mu);
  // A round's second part, for one read: reads the store without mu, then
  // hands what it read to the job's streams waiting for it. Returns whether a
  // stream is left waiting for the next round.
  bool ReadFor(const Read& read, Sends* sends) EXCLUDES(mu);
  void Close(Stream* stream) EXCLUDES(mu);
  // Ends the open streams `ended` names: each sends nothing more. Returns the
  // deliveries of their ends, to make once mu is released.
  std::vector<Deliver> EndWhere(const std::function<bool(const Stream&)>& ended) REQUIRES(mu);
  // When a check is due: ends the streams whose key was revoked or whose
  // session ended, as the store says now. On the hub's thread; returns when
  // the next check is due.
  Clock::time_point CheckCredentials(Clock::time_point now) EXCLUDES(mu);

  EventStore& store;
  AccessStore& access;  // keys and sessions, for CheckCredentials
  const EventStreamOptions options;
  std::chrono::milliseconds poll{2000};
  std::chrono::milliseconds credential_check{5000};

  mutable Mutex mu;
  std::condition_variable cv;
  bool stopping GUARDED_BY(mu) = false;
  bool wake GUARDED_BY(mu) = false;  // a stream needs a read, or a job was announced
  // The open streams, by job. Not owned: a stream is its connection's, and
  // leaves this map as it is closed or destroyed (under mu).
  std::unordered_map<std::string, std::vector<Stream*>> by_job GUARDED_BY(mu);
  std::unordered_map<std::string, size_t> per_key GUARDED_BY(mu);
  size_t count GUARDED_BY(mu) = 0;
  std::unordered_set<std::string> announced GUARDED_BY(mu);  // jobs with new events
  bool hearing GUARDED_BY(mu) = true;
  Clock::time_point next_poll GUARDED_BY(mu) = Clock::now();
  bool keys_changed GUARDED_BY(mu) = false;  // announced: check keys and sessions at once
  Clock::time_point next_check GUARDED_BY(mu) = Clock::now();
  std::thread thread;
};

struct EventStreams::Core::Stream final : BodySource {
  Stream(std::shared_ptr<Core> c, StreamRequest r)
      : core(std::move(c)),
        scope(std::move(r.scope)),
        job_id(std::move(r.job_id)),
        key_id(std::move(r.key_id)),
        session_hash(std::move(r.session_hash)),
        framing(std::move(r.framing)),
        after(r.after),
        opened(Clock::now()),
        ends(opened +
             std::min(r.lifetime.value_or(core->options.max_lifetime), core->options.max_lifetime)),
        last_sent(opened) {}

  void Next(Deliver deliver) override {
    std::optional<std::string> piece;  // delivered at once: the start, or nullopt (the end)
    {
      MutexLock lock(core->mu);
      const bool over = closed || ending || core->stopping;
      if (!over && !started) {
        started = true;
        piece = framing->Start();
        if (piece->empty()) {
          piece.reset();
        } else {
          last_sent = Clock::now();
        }
      }
      if (!over && !piece) {
        // Wait for events; read at once, as the last piece may not have taken
        // all there is.
        pending = std::move(deliver);
        needs_read = true;
        core->wake = true;
        core->cv.notify_one();
        return;
      }
    }
    deliver(std::move(piece));
  }

  void Close() override { core->Close(this); }
  // A stream dropped unclosed (its response never written) leaves the hub too.
  ~Stream() override { core->Close(this); }

  const std::shared_ptr<Core> core;
  const Scope scope;
  const std::string job_id;
  const std::string key_id;
  const std::string session_hash;               // empty: a Bearer key opened it
  const std::unique_ptr<EventFraming> framing;  // on the hub's thread, or under mu
  // Under core->mu:
  int64_t after;
  const Clock::time_point opened;
  const Clock::time_point ends;  // its lifetime's end
  Clock::time_point last_sent;
  Deliver pending;          // set while the connection waits for a piece
  bool needs_read = false;  // the store may hold events it has not been sent
  bool started = false;
  bool ending = false;      // its framing's end was sent: the next piece is the end
  bool registered = false;  // counted and in by_job (Open let it in)
  bool closed = false;
};

void EventStreams::Core::Close(Stream* stream) {
  MutexLock lock(mu);
  if (stream->closed) return;
  stream->closed = true;
  if (!stream->registered) return;
  stream->pending = nullptr;
  auto it = by_job.find(stream->job_id);
  if (it != by_job.end()) {
    std::erase(it->second, stream);
    if (it->second.empty()) by_job.erase(it);
  }
  if (auto k = per_key.find(stream->key_id); k != per_key.end() && --k->second == 0) {
    per_key.erase(k);
  }
  --count;
}

std::vector<Deliver> EventStreams::Core::EndWhere(const std::function<bool(const Stream&)>& ended) {
  std::vector<Deliver> ends;
  for (auto& [job_id, streams] : by_job) {
    for (auto& s : streams) {
      if (s->ending || !ended(*s)) continue;
      // Its next piece is the end of the body (Next); if the connection
      // waits for one, it is that end now. Nothing it has not sent yet is sent.
      s->ending = true;
      if (s->pending) ends.push_back(std::move(s->pending));
      s->pending = nullptr;
    }
  }
  return ends;
}

Clock::time_point EventStreams::Core::CheckCredentials(Clock::time_point now) {
  // What the open streams stand on: their organisations' keys, their sessions.
  std::unordered_map<std::string, std::unordered_set<std::string>> keys_by_org;
  std::unordered_set<std::string> sessions;
  {
    MutexLock lock(mu);
    if (!keys_changed && now < next_check) return next_check;
    keys_changed = false;
    next_check = now + (hearing ? credential_check
                                : std::min(credential_check, std::chrono::milliseconds(5000)));
    for (const auto& [job_id, streams] : by_job) {
      for (const auto& s : streams) {
        if (s->ending) continue;
        keys_by_org[s->scope.org_id].insert(s->key_id);
        if (!s->session_hash.empty()) sessions.insert(s->session_hash);
      }
    }
  }
  // Read without the lock: streams open, close and send meanwhile. Only a
  // definite answer ends a stream; a failed read is tried at the next check.
  std::unordered_set<std::string> revoked_keys, ended_sessions;
  for (const auto& [org_id, key_ids] : keys_by_org) {
    auto keys = access.ListApiKeys(org_id);
    if (!keys.ok()) {
      spdlog::warn("event streams: cannot check the keys of organisation {}: {}", org_id,
                   keys.status().message());
      continue;
    }
    std::unordered_set<std::string> active;
    for (const ApiKey& k : *keys) {
      if (!k.revoked_at) active.insert(k.id);
    }
    for (const std::string& id : key_ids) {
      if (!active.contains(id)) revoked_keys.insert(id);
    }
  }
  const UnixMillis at = NowMillis();
  for (const std::string& hash : sessions) {
    auto found = access.FindSession(hash, at);
    if (found.ok()) continue;
    if (found.status().code() == Code::kNotFound) {
      ended_sessions.insert(hash);
    } else {
      spdlog::warn("event streams: cannot check a session: {}", found.status().message());
    }
  }
  std::vector<Deliver> ends;
  Clock::time_point due;
  {
    MutexLock lock(mu);
    if (!revoked_keys.empty() || !ended_sessions.empty()) {
      ends = EndWhere([&](const Stream& s) {
        return revoked_keys.contains(s.key_id) ||
               (!s.session_hash.empty() && ended_sessions.contains(s.session_hash));
      });
    }
    // A change announced during the reads is checked for at once.
    due = keys_changed ? now : next_check;
  }
  for (auto& deliver : ends) deliver(std::nullopt);
  return due;
}

void EventStreams::Core::Run() {
  for (;;) {
    Clock::time_point due = Round();
    MutexLock lock(mu);
    while (!stopping && !wake && Clock::now() < due) lock.WaitUntil(cv, due);
    if (stopping) return;
    wake = false;
  }
}

Clock::time_point EventStreams::Core::Round() {
  // First: a stream whose key was revoked is sent nothing more.
  const Clock::time_point check_due = CheckCredentials(Clock::now());
  const Clock::time_point now = Clock::now();
  std::vector<Read> reads;
  Sends sends;
  Clock::time_point due;
  {
    MutexLock lock(mu);
    due = Survey(now, std::min(now + options.heartbeat, check_due), &reads, &sends);
  }
  for (auto& [deliver, piece] : sends) deliver(std::move(piece));
  sends.clear();

  bool again = false;  // a stream waiting to be read for is left for the next round
  for (const Read& read : reads) {
    if (ReadFor(read, &sends)) again = true;
  }
  if (again) {
    MutexLock lock(mu);
    wake = true;
  }
  for (auto& [deliver, piece] : sends) deliver(std::move(piece));
  return due;
}

Clock::time_point EventStreams::Core::Survey(Clock::time_point now, Clock::time_point due,
                                             std::vector<Read>* reads, Sends* sends) {
  const bool poll_due = now >= next_poll;
  if (poll_due)
    next_poll = now + (hearing ? poll : std::min(poll, std::chrono::milliseconds(1000)));
  due = std::min(due, next_poll);
  for (auto& [job_id, streams] : by_job) {
    const bool told = announced.contains(job_id);
    std::optional<int64_t> lowest;
    for (auto& s : streams) {
      if (!s->pending) continue;
      if (told || poll_due) s->needs_read = true;
      if (now >= s->ends) {
        // Its end, then (at the next piece) the end of the body.
        s->ending = true;
        std::string end = s->framing->End();
        sends->emplace_back(std::move(s->pending),
                            end.empty() ? std::nullopt : std::optional(std::move(end)));
        s->pending = nullptr;
        continue;
      }
      due = std::min(due, s->ends);
      if (s->needs_read) {
        lowest = lowest ? std::min(*lowest, s->after) : s->after;
      } else if (now - s->last_sent >= options.heartbeat) {
        s->last_sent = now;
        if (std::string beat = s->framing->Heartbeat(); !beat.empty()) {
          sends->emplace_back(std::move(s->pending), std::move(beat));
          s->pending = nullptr;
        }
        due = std::min(due, now + options.heartbeat);
      } else {
        due = std::min(due, s->last_sent + options.heartbeat);
      }
    }
    if (lowest) reads->push_back(Read{streams.front()->scope, job_id, *lowest});
  }
  announced.clear();
  return due;
}

bool EventStreams::Core::ReadFor(const Read& read, Sends* sends) {
  auto events = store.ListEvents(read.scope, read.job_id, read.after, options.batch);
  MutexLock lock(mu);
  auto it = by_job.find(read.job_id);
  if (it == by_job.end()) return false;
  if (!events.ok()) {
    if (events.status().code() == Code::kNotFound) {
      // The job or its project was deleted: nothing more will come.
      for (auto& s : it->second) {
        if (s->pending) sends->emplace_back(std::move(s->pending), std::nullopt);
        s->pending = nullptr;
      }
    } else {
      spdlog::warn("event streams of job {}: cannot read its events: {}", read.job_id,
                   events.status().message());
    }
    return false;  // the next poll tries again
  }
  bool again = false;
  const bool full = static_cast<int>(events->size()) >= options.batch;
  for (auto& s : it->second) {
    if (!s->pending || !s->needs_read) continue;
    if (s->after < read.after) {
      // It began waiting during the read, from further back than the read
      // started: it is read for in the next round, from where it is.
      again = true;
      continue;
    }
    std::string piece;
    for (const JobEvent& e : *events) {
      if (e.sequence <= s->after) continue;
      s->after = e.sequence;
      piece += s->framing->Event(e);
      if (s->framing->EndsAfter(e)) {  // its bytes end the stream
        s->ending = true;
        break;
      }
    }
    // A full batch may not be all there is: read again once this is sent.
    s->needs_read = full && !s->ending;
    if (piece.empty() && s->ending) {
      sends->emplace_back(std::move(s->pending), std::nullopt);
    } else if (!piece.empty()) {
      s->last_sent = Clock::now();
      sends->emplace_back(std::move(s->pending), std::move(piece));
    } else {
      // Nothing past it in this batch. If the batch was full (read from a
      // stream further back), what follows is read in the next round, at
      // once: a stream behind does not hold back one that is not.
      again |= s->needs_read;
      continue;
    }
    s->pending = nullptr;
  }
  return again;
}

EventStreams::EventStreams(EventStore& events, AccessStore& keys, Wakeups& wakeups,
                           EventStreamOptions options)
    : core_(std::make_shared<Core>(events, keys, std::move(options))) {
  if (core_->options.poll) {
    core_->poll = *core_->options.poll;
  } else {
    core_->poll = wakeups.AnnouncesChanges() ? std::chrono::milliseconds(30000)
                                             : std::chrono::milliseconds(2000);
  }
  if (core_->options.credential_check) {
    core_->credential_check = *core_->options.credential_check;
  } else {
    core_->credential_check = wakeups.AnnouncesChanges() ? std::chrono::milliseconds(60000)
                                                         : std::chrono::milliseconds(5000);
  }
  std::weak_ptr<Core> weak = core_;
  wakeups.Watch(StoreWatcher{
      .keys_changed =
          [weak] {
            // Quick, as a watcher must be: the hub's thread reads the store.
            auto core = weak.lock();
            if (!core) return;
            MutexLock lock(core->mu);
            if (core->count == 0) return;
            core->keys_changed = true;
            core->wake = true;
            core->cv.notify_one();
          },
      .job_events =
          [weak](const std::string& job_id) {
            auto core = weak.lock();
            if (!core) return;
            MutexLock lock(core->mu);
            if (!core->by_job.contains(job_id)) return;
            core->announced.insert(job_id);
            core->wake = true;
            core->cv.notify_one();
          },
      .hearing =
          [weak](bool hearing) {
            auto core = weak.lock();
            if (!core) return;
            MutexLock lock(core->mu);
            core->hearing = hearing;
            // What was missed meanwhile is read, and checked, at once.
            core->next_poll = Clock::now();
            core->next_check = core->next_poll;
            core->wake = true;
            core->cv.notify_one();
          },
  });
  core_->thread = std::thread([core = core_.get()] { core->Run(); });
}

EventStreams::~EventStreams() { Stop(); }

void EventStreams::Stop() {
  std::vector<Deliver> ends;
  {
    MutexLock lock(core_->mu);
    if (core_->stopping) return;
    core_->stopping = true;
    for (auto& [job_id, streams] : core_->by_job) {
      for (auto& s : streams) {
        if (s->pending) ends.push_back(std::move(s->pending));
        s->pending = nullptr;
      }
    }
    core_->cv.notify_one();
  }
  for (auto& deliver : ends) deliver(std::nullopt);
  if (core_->thread.joinable()) core_->thread.join();
}

Result<std::shared_ptr<BodySource>> EventStreams::Open(StreamRequest request) {
  if (!request.framing) request.framing = ServerSentEventFraming();
  auto stream = std::make_shared<Core::Stream>(core_, std::move(request));
  MutexLock lock(core_->mu);
  if (core_->stopping) return Status::Unavailable("the server is shutting down");
  if (core_->count >= core_->options.max_streams) {
    return Status::Unavailable("the server has " + std::to_string(core_->options.max_streams) +
                               " event streams open, its limit; retry later");
  }
  size_t& mine = core_->per_key[stream->key_id];
  if (mine >= core_->options.max_streams_per_key) {
    return Status::RateLimited("this API key has " +
                                   std::to_string(core_->options.max_streams_per_key) +
                                   " event streams open, its limit; close one first",
                               1);
  }
  ++mine;
  ++core_->count;
  core_->by_job[stream->job_id].push_back(stream.get());
  stream->registered = true;
  return std::shared_ptr<BodySource>(std::move(stream));
}

void EventStreams::EndStreamsOf(const std::string& key_id) {
  std::vector<Deliver> ends;
  {
    MutexLock lock(core_->mu);
    ends = core_->EndWhere([&](const Core::Stream& s) { return s.key_id == key_id; });
  }
  for (auto& deliver : ends) deliver(std::nullopt);
}

void EventStreams::EndSession(const std::string& token_hash) {
  if (token_hash.empty()) return;
  std::vector<Deliver> ends;
  {
    MutexLock lock(core_->mu);
    ends = core_->EndWhere([&](const Core::Stream& s) { return s.session_hash == token_hash; });
  }
  for (auto& deliver : ends) deliver(std::nullopt);
}

size_t EventStreams::open_streams() const {
  MutexLock lock(core_->mu);
  return core_->count;
}

}  // namespace docwright
