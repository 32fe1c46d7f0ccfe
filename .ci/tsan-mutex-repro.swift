// Why `make test-tsan` preloads .ci/tsan-mutex.c: ThreadSanitizer on Linux reports a race inside
// Synchronization.Mutex.withLock when the lock was contended, although both accesses hold
// the lock. Two threads add 1 to a counter 200 000 times each, only inside withLock; the total
// is exact (mutual exclusion holds), yet TSan reports a "Swift access race" in the closure.
// With the annotations preloaded the same binary runs clean, and a real race next to the lock
// is still reported (RACE=1 adds an unlocked counter):
//
//   swiftc -sanitize=thread -g .ci/tsan-mutex-repro.swift -o /tmp/tsan-mutex-repro
//   /tmp/tsan-mutex-repro                  # a report, total 400000
//   make .build/tsan/libtsan-mutex.so
//   LD_PRELOAD=.build/tsan/libtsan-mutex.so /tmp/tsan-mutex-repro           # clean
//   RACE=1 LD_PRELOAD=.build/tsan/libtsan-mutex.so /tmp/tsan-mutex-repro    # reports `unlocked`
import Foundation
import Synchronization

final class Counter: Sendable {
    let value = Mutex(0)
}

nonisolated(unsafe) var unlocked = 0
let race = ProcessInfo.processInfo.environment["RACE"] == "1"
let counter = Counter()
let perThread = 200_000
let done = DispatchSemaphore(value: 0)
for _ in 0..<2 {
    Thread {
        for _ in 0..<perThread {
            counter.value.withLock { $0 += 1 }
            if race { unlocked += 1 }
        }
        done.signal()
    }.start()
}
done.wait()
done.wait()
print("total \(counter.value.withLock { $0 }), expected \(2 * perThread)")
