import Canopy
import CanopyGraphics
import CanopySDL
import Dispatch
import Foundation
import Synchronization

/// The first screen's photos, decoded into the image cache on a thread of their own while the
/// window and its renderer are made.
///
/// Making the window takes the main thread about 35 ms on a cold start (SDL, EGL and llvmpipe
/// starting), with the other core idle; then the first frame compiles llvmpipe's shaders, and
/// only then do the cards' displays start, each decoding its photo first. The viewer knows its
/// first screen before it has a window (the cards, their heights, the window's size), so
/// `start` decodes those photos meanwhile, top first, exactly as the cards' displays will ask
/// for them (`CardNode.preloadPhoto`): a display then finds its decode in the cache, or waits for
/// the one in flight instead of starting it again (the cache's single flight).
///
/// Only the cards the collection shows before any batch fetch (`CardProvider.initialCount`: the
/// embedded cards; a folder is listed later) and only at a known scale: the headless one asked
/// for, or 1 in a window on X11, whose windows have a pixel per point (SDL's Wayland windows may
/// have two; there the scale is known only once the window is made, so nothing is decoded ahead).
enum FirstScreenDecodes {
    /// The most cards decoded ahead: a window taller than these (a 4K portrait display) decodes
    /// the rest as usual.
    static let limit = 16

    /// The indices of the cards a window of `size` points shows first (the collection fills the
    /// window, `Viewer.layout` places the cards), top first; at most `limit`.
    static func items(provider: any CardProvider, pageSize: Int, size: CGSize) -> [Int] {
        let count = min(provider.initialCount(pageSize: pageSize), limit * 2)
        guard count > 0, size.width > 0, size.height > 0 else { return [] }
        let heights = (0..<count).map { index in
            CardDeck.cardHeight(imageSize: try? provider.item(at: index).entry.imageSize.get())
        }
        let frames = Viewer.layout.layout(heights: heights, width: size.width).frames
        let visible = frames.indices.filter { frames[$0].minY < size.height }
        return Array(visible.sorted { (frames[$0].minY, $0) < (frames[$1].minY, $1) }.prefix(limit))
    }

    /// The scale the window will have, when it is known before the window is made: a headless
    /// window has the one asked for (1 by default); a window has 1 when `Application` will open
    /// it on X11, and an unknown one otherwise (nil).
    static func knownScale(headless: Bool, rendering: HeadlessOptions?, environment: [String: String]) -> CGFloat? {
        if headless { return rendering.map { CGFloat($0.scale) } ?? 1 }
        return Application.videoDrivers(headless: false, environment: environment) == "x11" ? 1 : nil
    }

    /// The decodes started: they can be stopped between photos, and waited for.
    final class Handle: Sendable {
        private let cancelled = Atomic<Bool>(false)
        private let group = DispatchGroup()
        /// The cards decoded ahead, top first.
        let indices: [Int]

        fileprivate init(indices: [Int]) {
            self.indices = indices
        }

        /// No photo is decoded after the one in progress. Any thread.
        func cancel() { cancelled.store(true, ordering: .relaxed) }
        var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

        /// Blocks until the decodes are done or stopped. Any thread.
        func wait() { group.wait() }

        fileprivate func run(_ items: [CardItem], scale: CGFloat, cache: ImageCache) {
            group.enter()
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                for item in items where !isCancelled {
                    CardNode.preloadPhoto(entry: item.entry, imagePath: item.imagePath, scale: scale, cache: cache)
                }
                // SDL keeps a per-thread error buffer for any thread that called it (a decoder's
                // failure does): give it back.
                GraphicsLibrary.releaseThreadState()
                group.leave()
            }
        }
    }

    /// Starts decoding the first screen's photos on a background thread and returns at once.
    /// `GraphicsLibrary.initialize()` must have run (the decoders need it).
    @discardableResult
    static func start(
        provider: any CardProvider, pageSize: Int, size: CGSize, scale: CGFloat, cache: ImageCache = .shared
    ) -> Handle {
        let indices = items(provider: provider, pageSize: pageSize, size: size)
        let handle = Handle(indices: indices)
        if !indices.isEmpty {
            handle.run(indices.map { provider.item(at: $0) }, scale: scale, cache: cache)
        }
        return handle
    }
}
