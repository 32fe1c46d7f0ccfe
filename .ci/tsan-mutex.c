// ThreadSanitizer annotations for Swift's Synchronization.Mutex on Linux. `make test-tsan`
// preloads this (LD_PRELOAD) into the sanitized test run; nothing else uses it.
//
// Why: Mutex.withLock is inlined into our code, and so are its uncontended paths, a
// compare-exchange that TSan sees (acquiring on lock, releasing on unlock). A contended lock
// or unlock calls out to libswiftSynchronization.so, which is not instrumented: _lockSlow spins
// on a compare-exchange TSan cannot see and then lets the kernel hand the lock over
// (FUTEX_LOCK_PI), and _unlockSlow hands it to a waiter with FUTEX_UNLOCK_PI. TSan misses the
// happens-before edge from one critical section to the next and reports a race between two
// accesses that both hold the lock (.ci/tsan-mutex-repro.swift shows it in a few lines).
//
// These wrappers call the real functions and tell TSan what they did: an acquire of the mutex
// word once _lockSlow returns (or _tryLockSlow succeeds), a release before _unlockSlow. That is
// the Mutex's own contract, so no edge is invented, and a race with anything outside the lock
// is still reported. Nothing is suppressed.
//
// The three symbols are the out-of-line slow paths that the inlined Mutex code calls (Swift
// 6.x, Linux). Swift passes `self` (the address of the mutex word) in the swiftself register,
// which clang spells swift_context. Outside a TSan process (swift-test itself, the symbolizer)
// the TSan entry points are absent and the wrappers only forward.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SWIFTCALL __attribute__((swiftcall))
#define SELF __attribute__((swift_context))

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

typedef SWIFTCALL void (*LockSlow)(uint32_t, void *SELF);
typedef SWIFTCALL bool (*TryLockSlow)(void *SELF);
typedef SWIFTCALL void (*UnlockSlow)(void *SELF);

static LockSlow real_lock_slow;
static TryLockSlow real_try_lock_slow;
static UnlockSlow real_unlock_slow;

// Resolved once at load, before any thread can lock. A process without Swift's Synchronization
// never calls the wrappers, so a missing symbol only matters when one is called.
__attribute__((constructor)) static void resolve(void) {
    real_lock_slow = (LockSlow)dlsym(RTLD_NEXT, LOCK_SLOW);
    real_try_lock_slow = (TryLockSlow)dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
    real_unlock_slow = (UnlockSlow)dlsym(RTLD_NEXT, UNLOCK_SLOW);
}

static void missing(const char *symbol) {
    fprintf(stderr, ".ci/tsan-mutex.c: %s is not in libswiftSynchronization.so; update the wrappers "
                    "for this toolchain's Mutex\n", symbol);
    abort();
}

SWIFTCALL void lock_slow(uint32_t self_id, void *SELF handle) __asm__(LOCK_SLOW);
SWIFTCALL void lock_slow(uint32_t self_id, void *SELF handle) {
    if (!real_lock_slow) missing(LOCK_SLOW);
    real_lock_slow(self_id, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

SWIFTCALL bool try_lock_slow(void *SELF handle) __asm__(TRY_LOCK_SLOW);
SWIFTCALL bool try_lock_slow(void *SELF handle) {
    if (!real_try_lock_slow) missing(TRY_LOCK_SLOW);
    bool locked = real_try_lock_slow(handle);
    if (locked && __tsan_acquire) __tsan_acquire(handle);
    return locked;
}

SWIFTCALL void unlock_slow(void *SELF handle) __asm__(UNLOCK_SLOW);
SWIFTCALL void unlock_slow(void *SELF handle) {
    if (!real_unlock_slow) missing(UNLOCK_SLOW);
    if (__tsan_release) __tsan_release(handle);
    real_unlock_slow(handle);
}
