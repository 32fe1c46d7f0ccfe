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
/// The cards the collection shows first: the embedded cards it starts with
/// (`CardProvider.initialCount`), or a folder's first files, listed and their headers read on the
/// decoding thread (a folder shows nothing before its first batch fetch). Only at a known scale: the headless one asked
/// for, or 1 in a window on X11, whose windows have a pixel per point (SDL's Wayland windows may
/// have two; there the scale is known only once the window is made, so nothing is decoded ahead).
enum FirstScreenDecodes {
    /// The most cards decoded ahead: a window taller than these (a 4K portrait display) decodes
    /// the rest as usual.
    static let limit = 16
    /// Photos above this many pixels are decoded ahead on two threads rather than one.
    static let largePhotoPixels: CGFloat = 8_000_000

    /// The indices of the cards a window of `size` points shows first (the collection fills the
    /// window, `Viewer.layout` places the cards), top first; at most `limit`.
    static func items(provider: any CardProvider, pageSize: Int, size: CGSize) -> [Int] {
        items(provider: provider, ready: provider.initialCount(pageSize: pageSize), size: size)
    }

    /// The same, among the first `ready` cards of `provider`.
    static func items(provider: any CardProvider, ready: Int, size: CGSize) -> [Int] {
        let count = min(ready, limit * 2)
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
        private let chosen: Mutex<[Int]>
        /// The cards decoded ahead, top first (for a folder, known once its first files are read
        /// on the decoding thread: after `wait()`).
        var indices: [Int] { chosen.withLock { $0 } }

        fileprivate init(indices: [Int]) {
            chosen = Mutex(indices)
        }

        /// No photo is decoded after the one in progress. Any thread.
        func cancel() { cancelled.store(true, ordering: .relaxed) }
        var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

        /// Blocks until the decodes are done or stopped. Any thread.
        func wait() { group.wait() }

        /// Decodes the photos of `items`, or first reads what the provider has of `read` (a
        /// folder's first files: listed and their headers read here, not on the main thread).
        fileprivate func run(
            _ items: [CardItem], reading read: (provider: any CardProvider, pageSize: Int, size: CGSize)? = nil,
            scale: CGFloat, cache: ImageCache
        ) {
            group.enter()
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                var items = items
                if let read {
                    let ready = read.provider.load(upTo: min(read.pageSize, FirstScreenDecodes.limit * 2))
                    let indices = FirstScreenDecodes.items(provider: read.provider, ready: ready, size: read.size)
                    chosen.withLock { $0 = indices }
                    items = indices.map { read.provider.item(at: $0) }
                }
                // Large photos (a camera's: 40 ms each, against 5 for the bundled ones) on two
                // threads, the second taking every other photo from the second on.
                let large = items.contains { item in
                    guard let size = try? item.entry.imageSize.get() else { return false }
                    return size.width * size.height > FirstScreenDecodes.largePhotoPixels
                }
                if large, items.count > 1 {
                    let second = stride(from: 1, to: items.count, by: 2).map { items[$0] }
                    items = stride(from: 0, to: items.count, by: 2).map { items[$0] }
                    group.enter()
                    DispatchQueue.global(qos: .userInitiated).async { [self] in
                        decode(second, scale: scale, cache: cache)
                        group.leave()
                    }
                }
                decode(items, scale: scale, cache: cache)
                group.leave()
            }
        }

        private func decode(_ items: [CardItem], scale: CGFloat, cache: ImageCache) {
            for item in items where !isCancelled {
                CardNode.preloadPhoto(entry: item.entry, imagePath: item.imagePath, scale: scale, cache: cache)
            }
            // SDL keeps a per-thread error buffer for any thread that called it (a decoder's
            // failure does): give it back.
            GraphicsLibrary.releaseThreadState()
        }
    }

    /// Starts decoding the first screen's photos on a background thread and returns at once.
    /// `GraphicsLibrary.initialize()` must have run (the decoders need it).
    @discardableResult
    static func start(
        provider: any CardProvider, pageSize: Int, size: CGSize, scale: CGFloat, cache: ImageCache = .shared
    ) -> Handle {
        if provider.initialCount(pageSize: pageSize) == 0 {
            // A folder: nothing is known before its first files are read, which the decoding
            // thread does first (the viewer's first batch fetch takes them, when it is given the
            // same provider).
            let handle = Handle(indices: [])
            if size.width > 0, size.height > 0 {
                handle.run([], reading: (provider, pageSize, size), scale: scale, cache: cache)
            }
            return handle
        }
        let indices = items(provider: provider, pageSize: pageSize, size: size)
        let handle = Handle(indices: indices)
        if !indices.isEmpty {
            handle.run(indices.map { provider.item(at: $0) }, scale: scale, cache: cache)
        }
        return handle
    }
}
