import CanopyGraphics
import HeapModule
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The raster workers: a fixed pool of threads that run display work (decode, scale, blur, text,
/// drawing), most urgent first (`DisplayPriority`), at a lower scheduling priority than the main
/// thread, so the scheduler favours frames over a busy pool (it cannot promise it: see
/// docs/ARCHITECTURE.md).
///
/// Thread-safe: `enqueue` from any thread. Work items must not touch SDL or any main-thread object;
/// they poll their own cancellation (the display sentinel) and return quickly when cancelled.
package final class DisplayQueue: Sendable {
    /// A queued item; cancelling it before a worker takes it means it never runs.
    package final class Ticket: Sendable {
        fileprivate let cancelled = Atomic<Bool>(false)
        package func cancel() { cancelled.store(true, ordering: .releasing) }
        package var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    }

    private struct Job: Comparable {
        let priority: DisplayPriority
        /// Unique per queue: the order jobs were queued in.
        let sequence: UInt64
        let ticket: Ticket
        let work: @Sendable () -> Void
        let onDrop: (@Sendable () -> Void)?

        /// The heap's order, smallest first: more urgent first, then older first.
        static func < (a: Job, b: Job) -> Bool {
            if a.priority != b.priority { return a.priority < b.priority }
            return a.sequence < b.sequence
        }

        static func == (a: Job, b: Job) -> Bool { a.sequence == b.sequence }
    }

    private struct State {
        /// The waiting jobs (swift-collections' min-max heap; `popMin` is the most urgent).
        var heap = Heap<Job>()
        var sequence: UInt64 = 0
        var stopped = false
        var running = 0
    }

    /// The shared pool: one worker per core (measured fastest on the 2-core reference machine;
    /// more workers only add switching, fewer leave a core idle while the main thread sleeps).
    package static let shared = DisplayQueue(workers: ProcessInfo.processInfo.activeProcessorCount)

    /// The long lane: one worker for displays known to take long (`DisplayNode.expectsLongDisplay`),
    /// so that they queue behind each other there and never hold the pool's workers.
    package static let long = DisplayQueue(workers: 1, name: "display.long")

    /// The nice value of worker threads (the main thread keeps 0).
    package static let workerNiceValue: Int32 = 5

    package let workerCount: Int
    private let state = Mutex(State())
    /// The workers' threads, as each started.
    private let workerThreads = Mutex<[pthread_t]>([])
    private let available = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `workers` threads (at least one) named "NAME.N" for the system (ps, top, perf: at
    /// most 15 bytes, Linux's limit, or the name is not set), from 0, and in traces "NAME worker
    /// N", from 1: "display.0" and "display worker 1" for the shared pool.
    package init(workers: Int, name: String = "display") {
        workerCount = max(1, workers)
        for index in 0..<workerCount {
            let traceName = "\(name) worker \(index + 1)"
            let systemName = "\(name).\(index)"
            let thread = Thread { [self] in
                // Set from the thread itself: on Linux a name given before start never reaches it.
                Thread.current.name = systemName
                self.workerThreads.withLock { $0.append(pthread_self()) }
                Tracer.shared.nameCurrentThread(traceName)
                workerLoop()
                let current = pthread_self()  // gone: its identifier may be reused
                self.workerThreads.withLock { $0.removeAll { pthread_equal($0, current) != 0 } }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues `work`; it runs on a worker when nothing more urgent waits. If it never runs (the
    /// queue was shut down, or its ticket was cancelled first), `onDrop` runs instead, once, so
    /// whoever waits for the work can stop waiting.
    @discardableResult
    package func enqueue(
        priority: DisplayPriority = .background, onDrop: (@Sendable () -> Void)? = nil,
        _ work: @escaping @Sendable () -> Void
    ) -> Ticket {
        let ticket = Ticket()
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.sequence += 1
            state.heap.insert(
                Job(
                    priority: priority, sequence: state.sequence, ticket: ticket, work: work,
                    onDrop: onDrop))
            return true
        }
        if accepted { available.signal() } else { onDrop?() }
        return ticket
    }

    /// Whether the calling thread is one of this queue's workers (by the thread itself, not its
    /// name, which tools and sanitizers may not show as set). Any thread.
    package var containsCurrentThread: Bool {
        let current = pthread_self()
        return workerThreads.withLock { $0.contains { pthread_equal($0, current) != 0 } }
    }

    /// Items waiting for a worker (cancelled ones included until a worker drops them).
    package var pendingCount: Int { state.withLock { $0.heap.count } }
    /// Items running now.
    package var runningCount: Int { state.withLock { $0.running } }

    /// Stops the workers after the items they are running; queued items are dropped. Returns when
    /// every worker has ended.
    package func shutdown() {
        let (wasRunning, dropped) = state.withLock { state -> (Bool, [Job]) in
            let was = !state.stopped
            state.stopped = true
            defer { state.heap = Heap() }
            return (was, Array(state.heap.unordered))
        }
        for job in dropped { job.onDrop?() }
        guard wasRunning else { return }
        for _ in 0..<workerCount { available.signal() }
        for _ in 0..<workerCount { finished.wait() }
    }

    private func workerLoop() {
        #if canImport(Glibc)
        // On Linux the nice value is per thread: `who` 0 is the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.workerNiceValue)
        #endif
        /// What a wake-up finds.
        enum Next { case run(Job), drop(Job), stop }
        loop: while true {
            available.wait()
            let next = state.withLock { state -> Next in
                // Every wake-up before shutdown has a job: jobs pushed >= signals >= waits.
                guard !state.stopped, let job = state.heap.popMin() else { return .stop }
                if job.ticket.isCancelled { return .drop(job) }
                state.running += 1
                return .run(job)
            }
            switch next {
            case .stop:
                break loop
            case .drop(let job):
                job.onDrop?()
            case .run(let job):
                job.work()
                state.withLock { $0.running -= 1 }
            }
        }
        GraphicsLibrary.releaseThreadState()  // the work may have used SDL (decoding, text)
        finished.signal()
    }
}
