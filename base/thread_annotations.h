// Clang thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html).
//
// They state the locking story in the code — which mutex guards which member, which
// functions must be called with it held — and clang's -Wthread-safety proves every access
// follows it (the build's clang configuration turns the findings into errors). On compilers
// without the attributes (g++) every macro expands to nothing.
//
//   class Inbox {
//     void Push(Item item) EXCLUDES(mu_);         // takes mu_ itself
//     void PushLocked(Item item) REQUIRES(mu_);   // caller holds mu_
//     Mutex mu_;
//     std::deque<Item> items_ GUARDED_BY(mu_);
//   };
//
// base/mutex.h is the annotated mutex these refer to.
#pragma once

#if defined(__has_attribute)
#if __has_attribute(guarded_by)
#define GATEHOUSE_THREAD_ANNOTATION(x) __attribute__((x))
#endif
#endif
#ifndef GATEHOUSE_THREAD_ANNOTATION
#define GATEHOUSE_THREAD_ANNOTATION(x)  // no-op
#endif

// A class whose instances are capabilities (mutexes): CAPABILITY("mutex").
#define CAPABILITY(x) GATEHOUSE_THREAD_ANNOTATION(capability(x))

// An RAII class that acquires a capability in its constructor and releases it in its
// destructor (MutexLock).
#define SCOPED_CAPABILITY GATEHOUSE_THREAD_ANNOTATION(scoped_lockable)

// A data member that may only be read or written with the capability held.
#define GUARDED_BY(x) GATEHOUSE_THREAD_ANNOTATION(guarded_by(x))

// A pointer (or smart pointer) member whose pointee may only be used with the capability
// held; the pointer itself is not guarded.
#define PT_GUARDED_BY(x) GATEHOUSE_THREAD_ANNOTATION(pt_guarded_by(x))

// Lock ordering between capabilities.
#define ACQUIRED_BEFORE(...) GATEHOUSE_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) GATEHOUSE_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

// The caller must hold the capability (exclusively, or at least shared) when calling.
#define REQUIRES(...) GATEHOUSE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) GATEHOUSE_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))

// The function acquires / releases the capability (no argument: `this`).
#define ACQUIRE(...) GATEHOUSE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) GATEHOUSE_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) GATEHOUSE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) GATEHOUSE_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) GATEHOUSE_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))

// The function tries to acquire the capability; the first argument is the return value
// that means success.
#define TRY_ACQUIRE(...) GATEHOUSE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) \
  GATEHOUSE_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))

// The caller must not hold the capability (the function acquires it itself; holding it
// would deadlock).
#define EXCLUDES(...) GATEHOUSE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// The function checks (or, for the analysis, asserts) that the capability is held.
#define ASSERT_CAPABILITY(x) GATEHOUSE_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) GATEHOUSE_THREAD_ANNOTATION(assert_shared_capability(x))

// The function returns a reference to the capability.
#define RETURN_CAPABILITY(x) GATEHOUSE_THREAD_ANNOTATION(lock_returned(x))

// Turns the analysis off for one function. Rare, and always with a comment saying why the
// analysis cannot follow the code.
#define NO_THREAD_SAFETY_ANALYSIS GATEHOUSE_THREAD_ANNOTATION(no_thread_safety_analysis)
