import Canopy
import CanopyGraphics
import CSDL2
import Foundation

/// The turn, as the application takes part in it: reading SDL's events, compositing the layer
/// tree, presenting (with the fallback from vsync to the clock for drivers that do not wait),
/// and capturing the frame when asked.
extension Application {
    /// Runs one turn and returns the composited frame as a bitmap.
    public func captureFrame() -> Bitmap? {
        captureRequested = true
        runTurn()
        defer { captured = nil }
        return captured
    }

    func pollEvents() {
        var event = SDL_Event()
        // SDL stamps events in milliseconds of SDL_GetTicks when they arrive; map that onto
        // the monotonic clock, so input queued during a frame keeps its own times (velocity
        // tracking needs them).
        let ticksOrigin = MonotonicClock.now() - Double(SDL_GetTicks64()) / 1000
        while SDL_PollEvent(&event) != 0 {
            let now = min(MonotonicClock.now(), ticksOrigin + Double(event.common.timestamp) / 1000)
            if event.type == waiter.wakeEventType { continue }
            if event.type == SDL_WINDOWEVENT.rawValue {
                let kind = SDL_WindowEventID(UInt32(event.window.event))
                if kind == SDL_WINDOWEVENT_SIZE_CHANGED || kind == SDL_WINDOWEVENT_RESIZED
                    || kind == SDL_WINDOWEVENT_DISPLAY_CHANGED
                {
                    let before = (size, scale)
                    updateSize()
                    if before != (size, scale) { eventHandler?(.resized(size, scale: scale), now) }
                    runLoop.setNeedsFrame()
                    continue
                }
                if kind == SDL_WINDOWEVENT_EXPOSED { runLoop.setNeedsFrame() }
            }
            if let input = translator.translate(event, now: now) {
                if input == .quit { quit() }
                eventHandler?(input, now)
            }
        }
    }

    func composite(_ turn: FrameLoop.Turn) {
        compositeTrace = Tracer.shared.begin("composite", category: "frame")
        compositor.scale = scale
        compositor.beginFrame(clearColor: clearColor)
        rootLayer.frame = CGRect(origin: .zero, size: size)
        compositor.draw(rootLayer)
        drawOverlays(turn)
        compositor.endFrame()
    }

    func present() {
        if captureRequested {
            captureRequested = false
            captured = readPixels()
        }
        let tracer = Tracer.shared
        tracer.measure("present", category: "frame") {
            SDL_RenderPresent(renderer)
            frameThrottle?.framePresented()
        }
        tracer.end(compositeTrace)
        compositeTrace = nil
        if tracer.isRecording {
            // The counter tracks, once a frame (no rate until two frames in a row were drawn).
            if let fps = runLoop.statistics.framesPerSecond(now: MonotonicClock.now()) { tracer.counter("fps", value: fps) }
            tracer.counter("texture MB", value: Double(compositor.textureBytes) / 1_048_576)
        }
        // A driver that claims vsync but does not wait for the display (some VMs and remote
        // displays) would spin the CPU. With vsync, presents end at least a refresh period
        // apart; 30 in a row closer than three quarters of one switch the loop to the clock,
        // for the rest of the run.
        let end = MonotonicClock.now()
        if case .vsync(let rate) = runLoop.pacing, let last = lastPresentEnd {
            fastPresents = (end - last) < 0.75 / rate ? fastPresents + 1 : 0
            if fastPresents >= 30 { runLoop.pacing = .clock(rate: 60) }
        }
        lastPresentEnd = end
        memoryTrimTurnEnded(now: end)
    }

    private func readPixels() -> Bitmap? {
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &w, &h)
        guard w > 0, h > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: Int(w) * Int(h) * 4)
        let ok = pixels.withUnsafeMutableBytes {
            SDL_RenderReadPixels(renderer, nil, SDL_PIXELFORMAT_ABGR8888.rawValue, $0.baseAddress, w * 4) == 0
        }
        guard ok else { return nil }
        // The frame is opaque (cleared to an opaque colour), so straight and premultiplied agree.
        for i in stride(from: 3, to: pixels.count, by: 4) { pixels[i] = 255 }
        return Bitmap(width: Int(w), height: Int(h), scale: scale, pixels: pixels)
    }

    func updateSize() {
        guard let window else { return }
        var w: Int32 = 0, h: Int32 = 0, pw: Int32 = 0, ph: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        SDL_GetRendererOutputSize(renderer, &pw, &ph)
        if let forced = options.forcedScale {
            size = CGSize(width: CGFloat(pw) / forced, height: CGFloat(ph) / forced)
            scale = forced
        } else {
            size = CGSize(width: CGFloat(w), height: CGFloat(h))
            scale = w > 0 ? max(1, CGFloat(pw) / CGFloat(w)) : 1
        }
        compositor.scale = scale
    }
}

extension Application {
    /// Waits until the renderer has drawn every frame presented so far, by reading one pixel back
    /// (a software rasterizer such as llvmpipe, like a GPU, draws a frame after its present
    /// returns): what a benchmark calls before it stops the clock.
    public func finishRendering() {
        var pixel: UInt32 = 0
        var rect = SDL_Rect(x: 0, y: 0, w: 1, h: 1)
        SDL_RenderReadPixels(renderer, &rect, SDL_PIXELFORMAT_ABGR8888.rawValue, &pixel, 4)
    }
}
