import Canopy
import CSDL2
import Foundation

/// Sleeps the run loop in SDL's event wait, so that input and `FrameLoop.perform` both wake it.
/// `wake()` pushes an SDL user event, which SDL allows from any thread.
final class SDLEventWaiter: FrameLoopWaiter {
    /// The SDL event type of the wake-up event.
    let wakeEventType: UInt32

    init() {
        let registered = SDL_RegisterEvents(1)
        wakeEventType = registered == UInt32.max ? SDL_USEREVENT.rawValue : registered
    }

    func wait(until deadline: TimeInterval?) {
        if let deadline {
            let ms = max(0, Int32(((deadline - MonotonicClock.now()) * 1000).rounded(.up)))
            _ = SDL_WaitEventTimeout(nil, ms)
        } else {
            _ = SDL_WaitEvent(nil)
        }
    }

    func discardPendingWakeups() {
        SDL_FlushEvent(wakeEventType)
    }

    func wake() {
        var event = SDL_Event()
        event.type = wakeEventType
        _ = SDL_PushEvent(&event)
    }
}
