import Canopy
import CanopyGraphics
import CSDL2
import Foundation

/// The SDL side of a Canopy app: the window (or a headless target), the renderer, the main
/// loop that drives the run loop, input translation, compositing of the layer tree, and the
/// debug overlays. Main thread only.
@MainActor
public final class Application {
    public struct Options: Sendable {
        public var title: String
        /// The window's size in points.
        public var size: CGSize
        /// Renders without a display server (SDL's offscreen driver, or the dummy driver with
        /// the software renderer), for screenshots and benchmarks.
        public var headless: Bool
        /// The face the overlays are drawn in.
        public var overlayFont: Font
        public var fonts: FontRegistry
        /// An SDL render driver to use ("software", "opengl", ...); nil picks the best.
        public var renderDriver: String?

        public init(title: String, size: CGSize, headless: Bool = false,
                    overlayFont: Font = Font(family: "Lato", size: 14), fonts: FontRegistry = .shared,
                    renderDriver: String? = nil) {
            self.renderDriver = renderDriver
            self.title = title
            self.size = size
            self.headless = headless
            self.overlayFont = overlayFont
            self.fonts = fonts
        }
    }

    /// The smallest window, in points: one 320 pt column with its margins.
    public static let minimumSize = CGSize(width: 340, height: 200)

    public let options: Options
    public let runLoop: FrameLoop
    /// The root of what is drawn; it fills the window.
    public let rootLayer = Layer()
    public let compositor: Compositor
    /// The window's size in points.
    public private(set) var size: CGSize
    /// Pixels per point (2 on a high-density display).
    public private(set) var scale: CGFloat = 1
    /// The SDL video driver and renderer in use, e.g. "x11" and "opengl".
    public let videoDriver: String
    public let rendererName: String
    /// The OpenGL driver's name for what draws (`GL_RENDERER`), e.g. "llvmpipe (LLVM 15.0.6, 256
    /// bits)" for Mesa's software rasterizer; nil with a renderer that is not OpenGL's (or ES's).
    public let graphicsDevice: String?
    /// Receives every input event, with the time it was read (monotonic seconds).
    public var eventHandler: ((InputEvent, TimeInterval) -> Void)?
    public var showsFPS = true { didSet { runLoop.setNeedsFrame() } }
    public var showsHelp = false { didSet { runLoop.setNeedsFrame() } }
    /// Draws the hit-test overlay of `overlayRootNode`'s controls over the layer tree, under the FPS
    /// and help overlays (Texture's enableHitTestDebug; the app binds it to a key, H).
    public var showsHitTestSlop = false { didSet { runLoop.setNeedsFrame() } }
    /// The node tree the debug overlays inspect, placed where its layer is drawn.
    public var overlayRootNode: DisplayNode? { didSet { runLoop.setNeedsFrame() } }
    /// Draws the image-scaling labels of `overlayRootNode`'s image nodes (Texture's image scaling
    /// overlay: red "%.2fx", image pixels over drawn pixels, at each node's bottom right).
    public var showsImageScaling = false { didSet { runLoop.setNeedsFrame() } }
    /// Draws the range overlay of `rangeOverlaySource`'s snapshot over the layer tree, under the FPS
    /// and help overlays (Texture's range debug overlay): on-screen cells tinted by state and a
    /// panel of the viewport and the display and preload ranges over the content.
    public var showsRanges = false { didSet { runLoop.setNeedsFrame() } }
    /// The collection's state for the range overlay, asked each frame it is shown; nil draws nothing.
    public var rangeOverlaySource: (@MainActor () -> RangeOverlaySnapshot?)?
    /// The pointer's shape; SDL's cursor changes only when this does. Headless: ignored.
    public var cursor = Cursor.arrow {
        didSet { if cursor != oldValue && !options.headless && !closed { systemCursors.show(cursor) } }
    }
    public var helpEntries: [HelpEntry] = []
    /// Lines the app adds to the FPS overlay (its modes).
    public var statusLines: () -> [String] = { [] }
    public var clearColor = Color(white: 0.11)
    public var title: String {
        didSet { if let window { SDL_SetWindowTitle(window, title) } }
    }

    private var window: OpaquePointer?
    private let renderer: OpaquePointer
    private var translator = EventTranslator()
    private let waiter: SDLEventWaiter
    private var textCache: TextCache
    private var fpsOverlay = FPSOverlay()
    private let systemCursors = SystemCursors()
    private var captureRequested = false
    private var captured: Bitmap?
    private var fastPresents = 0
    private var lastPresentEnd: TimeInterval?
    /// The trace's "composite" span: from the compositor's drawing to the end of the present.
    private var compositeTrace: Tracer.Interval?
    private var closed = false
    private let memoryTrimmer = MemoryTrimmer()
    /// Keeps the OpenGL renderer from running frames ahead of the driver (nil for others).
    private(set) var frameThrottle: FrameThrottle?
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

    /// Starts SDL and opens the window (or the headless target).
    public init(options: Options) throws(ApplicationError) {
        self.options = options
        self.size = options.size
        self.title = options.title
        if options.headless {
            // Override: an SDL_VIDEODRIVER in the environment must not send a headless run to
            // a display server.
            SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, "offscreen", SDL_HINT_OVERRIDE)
        } else if getenv("SDL_VIDEODRIVER") == nil {
            // Wayland gives trackpads fractional deltas; X11 only whole wheel clicks. Without
            // a Wayland session, trying it only makes libwayland print complaints.
            SDL_SetHint(SDL_HINT_VIDEODRIVER, getenv("WAYLAND_DISPLAY") != nil ? "wayland,x11" : "x11")
        }
        SDL_SetHint(SDL_HINT_VIDEO_ALLOW_SCREENSAVER, "1")
        // Headless runs (screenshots, benchmarks) poll no quit events: SIGINT and SIGTERM must
        // end them as usual rather than become SDL quit events.
        if options.headless { SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1") }
        if let driver = options.renderDriver { SDL_SetHint(SDL_HINT_RENDER_DRIVER, driver) }
        var initialised = SDL_Init(UInt32(SDL_INIT_VIDEO | SDL_INIT_EVENTS)) == 0
        if !initialised && options.headless {
            SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, "dummy", SDL_HINT_OVERRIDE)
            initialised = SDL_Init(UInt32(SDL_INIT_VIDEO | SDL_INIT_EVENTS)) == 0
        }
        guard initialised else {
            throw ApplicationError(Self.startFailure(reason: String(cString: SDL_GetError()), headless: options.headless,
                                                     environment: ProcessInfo.processInfo.environment))
        }
        do {
            try GraphicsLibrary.initialize()
        } catch {
            SDL_Quit()
            throw ApplicationError(error.message)
        }
        videoDriver = String(cString: SDL_GetCurrentVideoDriver())

        var flags = SDL_WINDOW_ALLOW_HIGHDPI.rawValue | SDL_WINDOW_RESIZABLE.rawValue
        if options.headless { flags |= SDL_WINDOW_HIDDEN.rawValue }
        let centered = Int32(bitPattern: 0x2FFF_0000) // SDL_WINDOWPOS_CENTERED
        guard let window = SDL_CreateWindow(options.title, centered, centered,
                                            Int32(options.size.width), Int32(options.size.height), flags) else {
            let reason = String(cString: SDL_GetError())
            SDL_Quit()
            throw ApplicationError("cannot create the window: \(reason)")
        }
        self.window = window
        SDL_SetWindowMinimumSize(window, Int32(Self.minimumSize.width), Int32(Self.minimumSize.height))

        var renderer = SDL_CreateRenderer(window, -1,
            SDL_RENDERER_ACCELERATED.rawValue | (options.headless ? 0 : SDL_RENDERER_PRESENTVSYNC.rawValue))
        if renderer == nil {
            renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue)
        }
        guard let renderer else {
            let reason = String(cString: SDL_GetError())
            SDL_DestroyWindow(window)
            SDL_Quit()
            throw ApplicationError("cannot create a renderer (neither accelerated nor software): \(reason)")
        }
        self.renderer = renderer
        var info = SDL_RendererInfo()
        SDL_GetRendererInfo(renderer, &info)
        rendererName = String(cString: info.name)
        graphicsDevice = rendererName.hasPrefix("opengl") ? Self.openGLRendererString() : nil
        let vsync = info.flags & SDL_RENDERER_PRESENTVSYNC.rawValue != 0

        var mode = SDL_DisplayMode()
        let refresh = SDL_GetWindowDisplayMode(window, &mode) == 0 && mode.refresh_rate > 0 ? Double(mode.refresh_rate) : 60
        waiter = SDLEventWaiter()
        runLoop = FrameLoop(pacing: vsync ? .vsync(refreshRate: refresh) : .clock(rate: 60),
                          waiter: waiter)
        compositor = Compositor(renderer: renderer, runLoop: runLoop)
        compositor.observeContents(of: rootLayer)
        textCache = TextCache(fonts: options.fonts)
        updateSize()
        SDL_EventState(UInt32(SDL_DROPFILE.rawValue), SDL_DISABLE)

        runLoop.addObserver(.beforePresent, order: Int.max) { [unowned self] turn in
            self.composite(turn)
        }
        frameThrottle = FrameThrottle(rendererName: rendererName)
    }

    /// `glGetString(GL_RENDERER)` of the current context (the renderer's, just made), looked up
    /// through SDL as the frame throttle's calls are.
    private static func openGLRendererString() -> String? {
        typealias GetString = @convention(c) (UInt32) -> UnsafePointer<UInt8>?
        let glRenderer: UInt32 = 0x1F01
        guard SDL_GL_GetCurrentContext() != nil, let address = SDL_GL_GetProcAddress("glGetString"),
              let name = unsafeBitCast(address, to: GetString.self)(glRenderer) else { return nil }
        return String(cString: name)
    }

    /// Why SDL's video could not start, in words that say what to change: the video driver the
    /// environment asked for, the display server it names, or that there is none.
    public nonisolated static func startFailure(reason: String, headless: Bool, environment: [String: String]) -> String {
        if headless { return "cannot start SDL's headless video driver: \(reason)" }
        let alternative = "or use the screenshot and bench commands, which need no display"
        if let driver = environment["SDL_VIDEODRIVER"], !driver.isEmpty {
            return "cannot open a window with SDL_VIDEODRIVER=\(driver) (\(reason)); unset it or name a driver that works here, \(alternative)"
        }
        var places: [String] = []
        if let display = environment["WAYLAND_DISPLAY"], !display.isEmpty { places.append("WAYLAND_DISPLAY=\(display)") }
        if let display = environment["DISPLAY"], !display.isEmpty { places.append("DISPLAY=\(display)") }
        if places.isEmpty {
            return "cannot open a window: no display server (DISPLAY and WAYLAND_DISPLAY are not set; \(reason)); set one, \(alternative)"
        }
        return "cannot open a window: no display server answers at \(places.joined(separator: " or ")) (\(reason)); start one or point there, \(alternative)"
    }

    /// Runs the main loop until the window closes or `quit()`.
    public func run() {
        if !options.headless { SDL_ShowWindow(window) }
        runLoop.run(input: { self.pollEvents() }, present: { self.present() })
    }

    /// Runs one turn: input, observers, compositing, present (headless drivers use it).
    public func runTurn() {
        runLoop.runTurn(input: { self.pollEvents() }, present: { self.present() })
    }

    /// Runs one turn and returns the composited frame as a bitmap.
    public func captureFrame() -> Bitmap? {
        captureRequested = true
        runTurn()
        defer { captured = nil }
        return captured
    }

    /// Ends `run()` after the current turn.
    public func quit() {
        runLoop.stop()
    }

    /// Releases the renderer, the window and SDL, and ends the displays of this app's run loop
    /// (`DisplayScheduler.shared`, when it is installed there): queued displays never run, running
    /// ones see their cancellation, so the workers are free at once (a decode already under way
    /// finishes first; a process that exits does not wait for it).
    public func close() {
        guard !closed else { return }
        closed = true
        runLoop.stop()
        if DisplayScheduler.shared.runLoop === runLoop { DisplayScheduler.shared.uninstall() }
        compositor.releaseAll()
        frameThrottle?.release()
        frameThrottle = nil
        SDL_DestroyRenderer(renderer)
        if let window { SDL_DestroyWindow(window) }
        window = nil
        SDL_Quit()
    }

    /// Resizes the window (or the headless target) to a size in points.
    public func setSize(_ newSize: CGSize) {
        guard let window else { return }
        SDL_SetWindowSize(window, Int32(newSize.width), Int32(newSize.height))
        updateSize()
    }

    // MARK: The turn

    private func pollEvents() {
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
                    || kind == SDL_WINDOWEVENT_DISPLAY_CHANGED {
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

    private func composite(_ turn: FrameLoop.Turn) {
        compositeTrace = Tracer.shared.begin("composite", category: "frame")
        compositor.scale = scale
        compositor.beginFrame(clearColor: clearColor)
        rootLayer.frame = CGRect(origin: .zero, size: size)
        compositor.draw(rootLayer)
        if showsImageScaling, let root = overlayRootNode {
            compositor.drawImageScalingLabels(ImageScalingOverlay.labels(in: root), text: textCache,
                                              font: Font(family: options.overlayFont.family, size: 12, weight: .bold))
        }
        if showsHitTestSlop, let root = overlayRootNode {
            compositor.drawHitTestSlop(HitTestSlopOverlay.regions(in: root))
        }
        if showsRanges, let snapshot = rangeOverlaySource?() {
            compositor.drawRangeOverlay(snapshot, text: textCache, font: options.overlayFont)
        }
        let font = options.overlayFont
        if showsFPS {
            let memory = String(format: "textures %.1f MB · %@ · %@", Double(compositor.textureBytes) / 1_048_576,
                                rendererName, videoDriver)
            fpsOverlay.draw(compositor: compositor, text: textCache, font: font, at: CGPoint(x: 10, y: 10),
                            statistics: runLoop.statistics, now: turn.time, idle: runLoop.wasIdle && turn.delta > 0.1,
                            extraLines: statusLines() + [memory])
            // The figures refresh while frames come. When this is the last frame of a burst
            // (nobody wants another), ask for one more a moment later, to show the settled
            // figures before the loop sleeps.
            if !runLoop.needsFrame && !runLoop.wasIdle {
                runLoop.setNeedsFrame(at: turn.time + 0.3)
            }
        }
        if showsHelp {
            HelpOverlay.draw(compositor: compositor, text: textCache, font: font, entries: helpEntries, in: size)
        }
        compositor.endFrame()
    }

    private func present() {
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
        let displays = DisplayScheduler.shared.displayStatistics.count, rasters = DisplayScheduler.shared.rasterStatistics
        let work = MemoryTrimmer.Work(displays: displays, rastersCompleted: rasters.completed,
                                      rastersCancelled: rasters.cancelled, textureBytes: compositor.textureBytes,
                                      scratchTextureBytes: compositor.scratchTextureBytes)
        if let check = memoryTrimmer.turnEnded(now: end, activity: work, loopWillSleep: !runLoop.needsFrame) {
            runLoop.setNeedsFrame(at: check)
        }
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

    private func updateSize() {
        guard let window else { return }
        var w: Int32 = 0, h: Int32 = 0, pw: Int32 = 0, ph: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        SDL_GetRendererOutputSize(renderer, &pw, &ph)
        size = CGSize(width: CGFloat(w), height: CGFloat(h))
        scale = w > 0 ? max(1, CGFloat(pw) / CGFloat(w)) : 1
        compositor.scale = scale
    }
}
