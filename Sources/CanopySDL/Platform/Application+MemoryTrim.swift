import Canopy
import CanopyMemory
import Foundation

/// Handing the C allocator's free memory back to the system once a burst of work has been quiet
/// (`MemoryTrimmer`, in CanopyMemory): what each turn tells it, and what the app and its
/// measurements can ask.
extension Application {
    /// How many times free memory was handed back to the system after a burst of work.
    public var memoryTrimCount: Int { memoryTrimmer.trims }
    /// Whether work was done since free memory was last handed back (it will be once quiet).
    public var isMemoryTrimDue: Bool { memoryTrimmer.isTrimDue }
    /// Waits for the handing back of free memory asked for so far to end (it runs on a queue of
    /// its own): what a measurement of resident memory at rest waits for.
    public func waitForMemoryTrims() { memoryTrimmer.waitForTrims() }
    /// How many trims of free memory ended since the last call, and the longest one, in seconds.
    public func takeMemoryTrimTimes() -> (count: Int, longest: TimeInterval) {
        let times = memoryTrimmer.takeTimes()
        return (times.count, times.longest)
    }
    /// How long work must be quiet before free memory is handed back (1 s).
    public var memoryTrimQuietTime: TimeInterval {
        get { memoryTrimmer.quietTime }
        set { memoryTrimmer.quietTime = newValue }
    }

    /// At the end of a turn (after the present, at `now`): tells the trimmer the work seen so far
    /// (displays, rasters, the layers' texture bytes), and when the loop is about to sleep with a
    /// trim due, asks for a turn at the time to look again. Not the overlays' textures: the FPS
    /// overlay's text is remade four times a second while it shows, and counted as work it kept
    /// a trim from ever coming at rest.
    func memoryTrimTurnEnded(now: TimeInterval) {
        let displays = DisplayScheduler.shared.displayStatistics.count, rasters = DisplayScheduler.shared.rasterStatistics
        let work = MemoryTrimmer.Work(
            displays: displays, rastersCompleted: rasters.completed,
            rastersCancelled: rasters.cancelled, textureBytes: compositor.layerTextureBytes,
            scratchTextureBytes: compositor.scratchTextureBytes)
        if let check = memoryTrimmer.turnEnded(now: now, activity: work, loopWillSleep: !runLoop.needsFrame) {
            runLoop.setNeedsFrame(at: check)
        }
    }
}
