// A mutex that Clang's thread-safety analysis understands (-Wthread-safety, on
// in clang builds), and the annotations that state which mutex guards what.
//
//   Mutex mu_;
//   int count_ GUARDED_BY(mu_);
//   void Bump() REQUIRES(mu_);  // callers hold mu_
//   void Poke() EXCLUDES(mu_);  // callers must not: it takes mu_
//
// MutexLock holds a Mutex for its scope, may release and take it again, and
// waits on a std::condition_variable. Write waits as loops over the condition
// (`while (!ready_) lock.Wait(cv_);`) rather than with a predicate lambda: the
// analysis checks each function by itself and does not know a lambda runs
// under the lock. The annotations are empty for other compilers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

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

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace docwright
