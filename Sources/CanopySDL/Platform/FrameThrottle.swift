import CSDL2
import Foundation

/// Keeps the OpenGL renderer at most two fence intervals of presented frames ahead of the driver.
///
/// Presenting only queues a frame: a GPU, or Mesa's llvmpipe, which rasterizes on threads of its
/// own, draws it later. A display's vsync holds the main thread back when the driver falls
/// behind, but headless runs and drivers without vsync never wait, and a software rasterizer
/// starved of CPU (a busy machine) falls further and further behind. Each queued llvmpipe frame
/// keeps its scene, and the scenes it made are kept for reuse: in a soak under load, 520 MB
/// allocated inside `SDL_RenderPresent` was still held minutes later (heaptrack), with our own
/// textures at rest unchanged. So every `fenceInterval` presents a fence marks the frame, and the
/// next fence's present waits for the one before (GL 3.2 / ARB_sync, looked up through SDL;
/// without them, or with another renderer, nothing is done): the driver is never more than two
/// intervals behind. When it keeps up, the fence is long signalled
/// and the wait returns at once.
///
/// Not a fence every frame: on llvmpipe each fence costs the rasterizer a synchronisation. The
/// compositor's floor at 2x, over the bare SDL program's frame (which has no fence), medians of
/// alternated runs at 1,000 pt/s: 1.5 to 1.9 with a fence every frame, 1.22 every 4 frames,
/// 1.11 every 8 (1.04 at 3,000 pt/s), 1.10 with none (docs/notes/compositor-floor.md). Every 8
/// frames, at most 16 are in flight: a starved llvmpipe held about 12 MB more than at 4.
/// Main thread, with the renderer's context current (during present).
@MainActor
final class FrameThrottle {
    private typealias FenceSync = @convention(c) (UInt32, UInt32) -> OpaquePointer?
    private typealias ClientWaitSync = @convention(c) (OpaquePointer?, UInt32, UInt64) -> UInt32
    private typealias DeleteSync = @convention(c) (OpaquePointer?) -> Void
    private static let syncGPUCommandsComplete: UInt32 = 0x9117
    private static let syncFlushCommandsBit: UInt32 = 0x1
    /// The longest wait for one frame (a driver that never signals must not hang the app).
    private static let timeoutNanoseconds: UInt64 = 1_000_000_000

    private let fenceSync: FenceSync
    private let clientWaitSync: ClientWaitSync
    private let deleteSync: DeleteSync
    /// Presents between fences.
    let fenceInterval: Int
    /// The fences of the frames presented and not yet waited for, oldest first (at most one).
    private(set) var fences: [OpaquePointer] = []
    /// Presents since the last fence.
    private var presentsSinceFence = 0

    /// A throttle for the OpenGL renderer, or nil when the renderer or the driver cannot fence.
    init?(rendererName: String, fenceInterval: Int = 8) {
        // GL's loaders return a stub for any name: the extension says whether fences exist.
        guard rendererName == "opengl", SDL_GL_GetCurrentContext() != nil,
            SDL_GL_ExtensionSupported("GL_ARB_sync") == SDL_TRUE,
            let fence = SDL_GL_GetProcAddress("glFenceSync"),
            let wait = SDL_GL_GetProcAddress("glClientWaitSync"),
            let delete = SDL_GL_GetProcAddress("glDeleteSync")
        else { return nil }
        fenceSync = unsafeBitCast(fence, to: FenceSync.self)
        clientWaitSync = unsafeBitCast(wait, to: ClientWaitSync.self)
        deleteSync = unsafeBitCast(delete, to: DeleteSync.self)
        self.fenceInterval = max(1, fenceInterval)
    }

    /// After a present: every `fenceInterval` presents, marks the frame and waits for the frame
    /// marked before.
    func framePresented() {
        presentsSinceFence += 1
        guard presentsSinceFence >= fenceInterval else { return }
        presentsSinceFence = 0
        if let fence = fenceSync(Self.syncGPUCommandsComplete, 0) { fences.append(fence) }
        while fences.count > 1 {
            let oldest = fences.removeFirst()
            _ = clientWaitSync(oldest, Self.syncFlushCommandsBit, Self.timeoutNanoseconds)
            deleteSync(oldest)
        }
    }

    /// Deletes the fences (before the renderer goes away).
    func release() {
        for fence in fences { deleteSync(fence) }
        fences.removeAll()
    }
}
