import Foundation

/// Seconds on the monotonic clock, the time base of the run loop, scrolling and statistics.
public enum MonotonicClock {
    /// Now, in seconds since an arbitrary fixed point.
    public static func now() -> TimeInterval {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return TimeInterval(ts.tv_sec) + TimeInterval(ts.tv_nsec) / 1e9
    }

    /// Sleeps the calling thread until the monotonic clock reads `deadline` (seconds).
    public static func sleep(until deadline: TimeInterval) {
        var ts = timespec()
        ts.tv_sec = Int(deadline.rounded(.down))
        ts.tv_nsec = Int((deadline - deadline.rounded(.down)) * 1e9)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
