// A mutex that Clang's thread-safety analysis understands (-Wthread-safety, on
// in clang builds), and the annotations that state which mutex guards what.
//
//   Mutex mu_;
//   int count_ GUARDED_BY(mu_);
//   void Bump() REQUIRES(mu_);  // callers hold mu_
//   void Poke() EXCLUDES(mu_);  // callers must not: it takes mu_
//
// SharedMutex is held by one writer (WriterMutexLock) or by any number of
// readers together (ReaderMutexLock); a reader may only read what it guards:
//
//   SharedMutex mu_;
//   std::map<K, V> map_ GUARDED_BY(mu_);
//   V Get(const K& k) EXCLUDES(mu_);   // takes a ReaderMutexLock
//   void Put(K k, V v) EXCLUDES(mu_);  // takes a WriterMutexLock
//
// MutexLock holds a Mutex for its scope, may release and take it again, and
// waits on a std::condition_variable (or, to be woken by a std::stop_token as
// well, a std::condition_variable_any). Write waits as loops over the condition
// (`while (!ready_) lock.Wait(cv_);`) rather than with a predicate lambda: the
// analysis checks each function by itself and does not know a lambda runs
// under the lock. The annotations are empty for other compilers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <stop_token>
#include <utility>

#if defined(__clang__)
#define DW_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define DW_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) DW_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY DW_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) DW_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) DW_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) DW_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) DW_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) DW_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) DW_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define EXCLUDES(...) DW_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS DW_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace docwright {

class CAPABILITY("mutex") Mutex {
 public:
  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // Releases the mutex until Lock(), or the end of the scope.
  void Unlock() RELEASE() { lock_.unlock(); }
  void Lock() ACQUIRE() { lock_.lock(); }

  // Waits on `cv`, the mutex released meanwhile and held again on return.
  void Wait(std::condition_variable& cv) { cv.wait(lock_); }
  // Runs `fn` with the mutex released, held again on return (as Wait, for a
  // wait of another kind). `fn` must not throw.
  template <typename Fn>
  void WhileUnlocked(Fn&& fn) {
    lock_.unlock();
    fn();
    lock_.lock();
  }
  // As Wait, until `deadline` at the latest; false if it passed.
  template <typename Clock, typename Duration>
  bool WaitUntil(std::condition_variable& cv,
                 const std::chrono::time_point<Clock, Duration>& deadline) {
    return cv.wait_until(lock_, deadline) == std::cv_status::no_timeout;
  }
  // As WaitUntil, on a std::condition_variable_any, woken also when `stop` is
  // requested; false if the deadline passed or `stop` was requested.
  template <typename Clock, typename Duration>
  bool WaitUntil(std::condition_variable_any& cv, std::stop_token stop,
                 const std::chrono::time_point<Clock, Duration>& deadline) {
    // The standard's wait that a stop token ends takes a predicate: this one
    // lets it wait once, as the waits above do.
    bool waited = false;
    cv.wait_until(lock_, stop, deadline, [&] { return std::exchange(waited, true); });
    return !stop.stop_requested() && Clock::now() < deadline;
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

class CAPABILITY("mutex") SharedMutex {
 private:
  friend class WriterMutexLock;
  friend class ReaderMutexLock;
  std::shared_mutex mu_;
};

// Holds a SharedMutex alone for its scope.
class SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex& mu) ACQUIRE(mu) : lock_(mu.mu_) {}
  ~WriterMutexLock() RELEASE() {}
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  std::unique_lock<std::shared_mutex> lock_;
};

// Holds a SharedMutex for its scope, shared with other readers.
class SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex& mu) ACQUIRE_SHARED(mu) : lock_(mu.mu_) {}
  ~ReaderMutexLock() RELEASE() {}
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  std::shared_lock<std::shared_mutex> lock_;
};

}  // namespace docwright
