import CSDL2
import CSDL2Image
import CSDL2TTF
import Synchronization

/// Starts the C libraries CanopyGraphics stands on: SDL_image (decoding) and SDL_ttf (text).
///
/// SDL_image and SDL_ttf must be initialised once, on the main thread, before any worker
/// decodes an image or draws text. `initialize()` does that and may be called again at no cost.
public enum GraphicsLibrary {
    private static let state = Mutex<Bool>(false)

    /// Call on the main thread before any other CanopyGraphics call that decodes or draws text.
    public static func initialize() throws(GraphicsLibraryError) {
        try state.withLock { (started: inout Bool) throws(GraphicsLibraryError) in
            if started { return }
            if TTF_WasInit() == 0, TTF_Init() != 0 {
                throw GraphicsLibraryError(message: "SDL_ttf failed to start: \(String(cString: SDL_GetError()))")
            }
            let wanted = Int32(IMG_INIT_JPG.rawValue | IMG_INIT_PNG.rawValue | IMG_INIT_WEBP.rawValue)
            let got = IMG_Init(wanted)
            if got & wanted != wanted {
                throw GraphicsLibraryError(message: "SDL_image lacks a decoder: \(String(cString: SDL_GetError()))")
            }
            started = true
        }
    }

    /// Frees what SDL keeps for the calling thread: the buffer of its last error, made by any
    /// SDL, SDL_image or SDL_ttf call on that thread that set or cleared one (SDL_image's GIF
    /// loader does, a missing glyph does). SDL frees it when a thread of its own ends; a thread
    /// we start that used SDL calls this as it ends, or the buffer leaks (make test-asan found
    /// it for display workers that were shut down). Safe on any thread, and after any call.
    public static func releaseThreadState() {
        SDL_TLSCleanup()
    }
}

/// A C library that CanopyGraphics needs did not start.
public struct GraphicsLibraryError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
