import Canopy
import CanopyGraphics
import CanopyMemory
import CSDL2
import Foundation

/// The SDL side of a Canopy app: the window (or a headless target), the renderer, the main
/// loop that drives the run loop, input translation, compositing of the layer tree, and the
/// debug overlays. Main thread only.
///
/// This file starts SDL and ends it and holds the state; the turn (events, compositing, the
/// present with its vsync fallback, frame capture) is in `Application+Turn`, the debug overlays'
/// switches and drawing in `Application+Overlays`, the handing back of free memory in
/// `Application+MemoryTrim`.
@MainActor
public final class Application {
    public struct Options: Sendable {
        public var title: String
        /// The window's size in points.
        public var size: CGSize
        /// The smallest the user can make the window, in points; nil leaves it to SDL and the
        /// window manager. What is too small depends on the app's layout, which only it knows.
        public var minimumSize: CGSize?
        /// Renders without a display server (SDL's offscreen driver, or the dummy driver with
        /// the software renderer), for screenshots and benchmarks.
        public var headless: Bool
        /// The face the overlays are drawn in: the app's, since the fonts are its own (`fonts`);
        /// the framework names no family.
        public var overlayFont: Font
        public var fonts: FontRegistry
        /// An SDL render driver to use ("software", "opengl", ...); nil picks the best.
        public var renderDriver: String?
        /// Headless only: the pixels per point to render at, as on a high-density display (2 for
        /// most HiDPI screens); nil, or a window, takes the display's own.
        public var pixelScale: CGFloat?
        /// Without vsync (headless): the rate the frame loop paces at, in frames per second;
        /// nil is 60. With vsync the display's own rate paces it.
        public var refreshRate: Double?

        /// `pixelScale` when it applies (headless, finite and positive): such a window's SDL
        /// window is made in pixels, and its size in points is those over the scale.
        var forcedScale: CGFloat? {
            guard headless, let scale = pixelScale, scale.isFinite, scale > 0 else { return nil }
            return scale
        }

        public init(
            title: String, size: CGSize, overlayFont: Font, minimumSize: CGSize? = nil,
            headless: Bool = false, fonts: FontRegistry = .shared, renderDriver: String? = nil,
            pixelScale: CGFloat? = nil, refreshRate: Double? = nil
        ) {
            self.renderDriver = renderDriver
            self.pixelScale = pixelScale
            self.refreshRate = refreshRate
            self.title = title
            self.size = size
            self.minimumSize = minimumSize
            self.headless = headless
            self.overlayFont = overlayFont
            self.fonts = fonts
        }
    }

    public let options: Options
    public let runLoop: FrameLoop
    /// The root of what is drawn; it fills the window.
    public let rootLayer = Layer()
    public let compositor: Compositor
    /// The window's size in points.
    public internal(set) var size: CGSize
    /// Pixels per point (2 on a high-density display).
    public internal(set) var scale: CGFloat = 1
    /// The SDL video driver and renderer in use, e.g. "x11" and "opengl".
    public let videoDriver: String
    public let rendererName: String
    /// The OpenGL driver's name for what draws (`GL_RENDERER`), e.g. "llvmpipe (LLVM 15.0.6, 256
    /// bits)" for Mesa's software rasterizer; nil with a renderer that is not OpenGL's (or ES's).
    public let graphicsDevice: String?
    /// Receives every input event, with the time it was read (monotonic seconds).
    public var eventHandler: ((InputEvent, TimeInterval) -> Void)?
    /// The pointer's shape; SDL's cursor changes only when this does. Headless: ignored.
    public var cursor = Cursor.arrow {
        didSet { if cursor != oldValue && !options.headless && !closed { systemCursors.show(cursor) } }
    }
    public var clearColor = Color(white: 0.11)
    public var title: String {
        didSet { if let window { SDL_SetWindowTitle(window, title) } }
    }

    private(set) var window: OpaquePointer?
    let renderer: OpaquePointer
    var translator = EventTranslator()
    let waiter: SDLEventWaiter
    /// The debug overlays' switches and what they draw with (`Application+Overlays`).
    var overlays: OverlayState
    private let systemCursors = SystemCursors()
    var captureRequested = false
    var captured: Bitmap?
    /// Presents in a row that ended sooner after the last than vsync allows (the vsync fallback).
    var fastPresents = 0
    var lastPresentEnd: TimeInterval?
    /// The trace's "composite" span: from the compositor's drawing to the end of the present.
    var compositeTrace: Tracer.Interval?
    private var closed = false
    /// Hands free memory back after bursts of work (`Application+MemoryTrim`).
    let memoryTrimmer = MemoryTrimmer()
    /// Keeps the OpenGL renderer from running frames ahead of the driver (nil for others).
    private(set) var frameThrottle: FrameThrottle?

    /// The SDL video drivers a window is opened with, in SDL_VIDEODRIVER's form: "offscreen"
    /// headless (whatever the environment says); else the environment's SDL_VIDEODRIVER; else
    /// "wayland,x11" in a Wayland session (Wayland gives trackpads fractional deltas, X11 only
    /// whole wheel clicks) and "x11" without one (trying Wayland there only makes libwayland
    /// print complaints). Any thread.
    public nonisolated static func videoDrivers(headless: Bool, environment: [String: String]) -> String {
        if headless { return "offscreen" }
        if let drivers = environment["SDL_VIDEODRIVER"] { return drivers }
        return environment["WAYLAND_DISPLAY"] != nil ? "wayland,x11" : "x11"
    }

    /// Starts SDL and opens the window (or the headless target).
    public init(options: Options) throws(ApplicationError) {
        self.options = options
        self.size = options.size
        self.title = options.title
        let drivers = Self.videoDrivers(headless: options.headless, environment: ProcessInfo.processInfo.environment)
        if options.headless {
            // Override: an SDL_VIDEODRIVER in the environment must not send a headless run to
            // a display server.
            SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, drivers, SDL_HINT_OVERRIDE)
        } else {
            SDL_SetHint(SDL_HINT_VIDEODRIVER, drivers)
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
            throw ApplicationError(
                Self.startFailure(
                    reason: String(cString: SDL_GetError()), headless: options.headless,
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
        let centered = Int32(bitPattern: 0x2FFF_0000)  // SDL_WINDOWPOS_CENTERED
        guard
            let window = SDL_CreateWindow(
                options.title, centered, centered,
                Int32(options.size.width * (options.forcedScale ?? 1)),
                Int32(options.size.height * (options.forcedScale ?? 1)), flags)
        else {
            let reason = String(cString: SDL_GetError())
            SDL_Quit()
            throw ApplicationError("cannot create the window: \(reason)")
        }
        self.window = window
        if let minimum = options.minimumSize {
            SDL_SetWindowMinimumSize(window, Int32(minimum.width), Int32(minimum.height))
        }

        var renderer = SDL_CreateRenderer(
            window, -1,
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
        runLoop = FrameLoop(
            pacing: vsync ? .vsync(refreshRate: refresh) : .clock(rate: options.refreshRate ?? 60),
            waiter: waiter)
        compositor = Compositor(renderer: renderer, runLoop: runLoop)
        compositor.observeContents(of: rootLayer)
        overlays = OverlayState(textCache: TextCache(fonts: options.fonts))
        updateSize()
        // Files and folders dropped on the window come as SDL_DROPFILE (InputEvent.filesDropped);
        // dropped text is not used.
        SDL_EventState(UInt32(SDL_DROPFILE.rawValue), SDL_ENABLE)
        SDL_EventState(UInt32(SDL_DROPTEXT.rawValue), SDL_DISABLE)

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
            let name = unsafeBitCast(address, to: GetString.self)(glRenderer)
        else { return nil }
        return String(cString: name)
    }

    /// Why SDL's video could not start, in words that say what to change: the video driver the
    /// environment asked for, the display server it names, or that there is none.
    public nonisolated static func startFailure(reason: String, headless: Bool, environment: [String: String]) -> String {
        if headless { return "cannot start SDL's headless video driver: \(reason)" }
        let alternative = "or use the screenshot and bench commands, which need no display"
        if let driver = environment["SDL_VIDEODRIVER"], !driver.isEmpty {
            return
                "cannot open a window with SDL_VIDEODRIVER=\(driver) (\(reason)); unset it or name a driver that works here, \(alternative)"
        }
        var places: [String] = []
        if let display = environment["WAYLAND_DISPLAY"], !display.isEmpty { places.append("WAYLAND_DISPLAY=\(display)") }
        if let display = environment["DISPLAY"], !display.isEmpty { places.append("DISPLAY=\(display)") }
        if places.isEmpty {
            return
                "cannot open a window: no display server (DISPLAY and WAYLAND_DISPLAY are not set; \(reason)); set one, \(alternative)"
        }
        return
            "cannot open a window: no display server answers at \(places.joined(separator: " or ")) (\(reason)); start one or point there, \(alternative)"
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
        let pixels = options.forcedScale ?? 1  // a headless window at a forced scale is sized in pixels
        SDL_SetWindowSize(window, Int32(newSize.width * pixels), Int32(newSize.height * pixels))
        updateSize()
    }
}
