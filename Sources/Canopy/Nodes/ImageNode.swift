// One file (about 900 lines) on purpose: the node's options and the worker's work from its
// snapshot (decode, crop, place, modify, the error state, an animation's plan) read the same
// private Parameters and settings. The animations' playing is ImageAnimations.swift's.
import Foundation
import Synchronization

/// A node that shows an image (Texture's `ASImageNode`): a `Bitmap` given in memory, or a file
/// decoded on a display worker through an `ImageCache`, no bigger than the node shows it.
///
/// Placement follows Texture:
/// - `contentMode` (default `.aspectFill`) places the image in the bounds; every `ContentMode`
///   works. The modes that keep the image's size (`.center` and the edge modes) use its size in
///   points: a `Bitmap`'s `size`, or a file's pixel size (files are one pixel per point).
/// - `cropRect` is a rect in unit coordinates of the image. When it is empty (the default,
///   (0.5, 0.5, 0, 0)), only its origin counts: it positions an aspect-filled image that
///   overflows the bounds (x 0 keeps its left edge, 1 its right edge, 0.5 centres it). When it
///   is not empty, that part of the image is stretched to the bounds, for `.aspectFill`,
///   `.aspectFit` and `.center` (Texture's own rule; the other modes ignore a non-empty crop).
/// - `forceUpscaling` (default false): when the image has fewer pixels than the bounds show it
///   across, the bitmap is made smaller instead of enlarging the image on the CPU, so no image
///   pixel covers more than one bitmap pixel; the compositor stretches the bitmap to the bounds
///   (Texture's reduced backing size, per axis here). True draws at the bounds' full pixel size.
///
/// Display runs on a worker (`display(_:size:scale:isCancelled:)`): the file's header
/// is read, the file is decoded through `imageCache` to cover exactly the pixels the image is
/// drawn across (never more, and never above the file's own size), the image is drawn into the
/// bitmap (clipped to the bounds), then `imageModificationBlock` runs on the result. When the
/// bounds show less than half of the file's pixels (an aspect-filled panorama, a small
/// `cropRect`: see `ImageGeometry.visibleCrop`), only the visible part is decoded into the
/// bitmap (a crop, rounded outward to multiples of 8 pixels) and drawn where it lies, so the
/// decode holds no more than the bounds need (the file is still read down to the crop's bottom
/// edge); otherwise the whole file is. `isCancelled` is polled between
/// these steps; a cancelled display returns no bitmap. With `displaysAsynchronously = false` the node
/// asked to draw on the main thread, and a file is then decoded there too: the one exception.
///
/// A file that cannot be decoded (missing, unreadable, corrupt: `ImageError`) is drawn as a grey
/// box with the error's description written in it, so a broken image shows why (unless
/// `drawsErrorState` is off); `lastError` holds the error once that display has landed.
///
/// Every property is behind the node's lock and may be set from any thread; changes redisplay
/// the node, and changes of the image's size in points invalidate layout (a `Bitmap` image
/// sizes a leaf node to its size in points, as in Texture; a file image has no intrinsic size
/// in layout, since reading it would be I/O during layout: size the node with its style).
open class ImageNode: DisplayNode, ContentDrawing, @unchecked Sendable {
    /// What the node shows.
    enum Source: Sendable {
        case bitmap(Bitmap)
        case file(String)
    }

    private struct Settings {
        var source: Source?
        var contentMode: ContentMode = .aspectFill
        var cropRect = ImageNode.defaultCropRect
        var forceUpscaling = false
        var imageModificationBlock: (@Sendable (Bitmap, _ isCancelled: @Sendable () -> Bool) -> Bitmap?)?
        var imageCache: ImageCache = .shared
        var fonts: FontRegistry = .shared
        var drawsErrorState = true
        var lastError: ImageError?
        var imageScaleFactor: CGFloat?
        /// Where the worker reports the outcome of the latest display.
        var pendingOutcome: DisplayOutcome?
        /// Whether a layout has read the image's size: until then a new size has no cached layout
        /// to invalidate.
        var wasMeasured = false
        /// Another node of the same file whose decode this one draws from (weak: the partner
        /// is usually a sibling, owned by the same parent).
        weak var decodeSharedWith: ImageNode?
        /// Whether a large JPEG shows its embedded thumbnail while the photo decodes.
        var showsEmbeddedThumbnailFirst = false
        /// Whether the last landed display showed such a thumbnail: the next one decodes the file.
        var previewLanded = false
        /// Whether a display of the file itself has landed since the node entered the display
        /// range: later displays never go back to the thumbnail (no sharp, soft, sharp flash).
        var fileLanded = false
        /// Whether an animated file plays while the node is visible.
        var animatesImage = true
        /// Whether this node's animation holds its current frame.
        var animatedImagePaused = false
        /// How the frames of the node's animated file are drawn, from the last landed display
        /// (nil for a still image, or a display into a rasterizing ancestor).
        var animationPlan: AnimationPlan?
        /// Tests: called on the decoding thread before a file is decoded.
        var decodeObserver: (@Sendable (_ path: String, _ fitting: CGSize?, _ crop: ImageDecoder.Crop?) -> Void)?
    }

    /// Texture's default: empty, centred (an aspect-filled image overflows evenly on both sides).
    public static let defaultCropRect = CGRect(x: 0.5, y: 0.5, width: 0, height: 0)

    private let settings = Mutex(Settings())

    public override init() {
        super.init()
    }

    // MARK: The image

    /// An image in memory, drawn as it is (scaled by the drawing, not decoded). Setting it replaces
    /// a file image; reading it while the node shows a file gives nil. Any thread.
    public var image: Bitmap? {
        get {
            if case .bitmap(let bitmap) = settings.withLock({ $0.source }) { return bitmap }
            return nil
        }
        set { setSource(newValue.map { .bitmap($0) }) }
    }

    /// The image file's path, decoded on a display worker. Setting it replaces a `Bitmap` image.
    /// Any thread.
    public var imagePath: String? {
        get {
            if case .file(let path) = settings.withLock({ $0.source }) { return path }
            return nil
        }
        set { setSource(newValue.map { .file($0) }) }
    }

    /// The image file as a file URL (see `imagePath`); a URL that is not a file URL cannot be read
    /// and shows as a missing file. Any thread.
    public var imageURL: URL? {
        get { imagePath.map { URL(fileURLWithPath: $0) } }
        set { imagePath = newValue.map { $0.isFileURL ? $0.path : $0.absoluteString } }
    }

    private func setSource(_ source: Source?) {
        let (changed, resized) = settings.withLock { settings -> (Bool, Bool) in
            guard !Self.same(settings.source, source) else { return (false, false) }
            let oldSize = Self.intrinsicSize(of: settings.source)
            settings.source = source
            // Another image: its own quick thumbnail first, if it has one.
            settings.previewLanded = false
            settings.fileLanded = false
            return (true, settings.wasMeasured && oldSize != Self.intrinsicSize(of: source))
        }
        guard changed else { return }
        if resized { setNeedsLayout() }
        setNeedsDisplay()
    }

    private static func same(_ a: Source?, _ b: Source?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.bitmap(let x)?, .bitmap(let y)?): return x === y
        case (.file(let x)?, .file(let y)?): return x == y
        default: return false
        }
    }

    /// The size in points a source gives a leaf in layout: a bitmap's; none for a file.
    private static func intrinsicSize(of source: Source?) -> CGSize? {
        if case .bitmap(let bitmap) = source { return bitmap.size }
        return nil
    }

    // MARK: Placement and drawing options

    /// How the image fills the bounds (default `.aspectFill`, Texture's). Any thread.
    public var contentMode: ContentMode {
        get { settings.withLock { $0.contentMode } }
        set { update(\.contentMode, newValue) }
    }

    /// The part of the image to feature, in unit coordinates (see the type's notes). Default
    /// (0.5, 0.5, 0, 0). Any thread.
    public var cropRect: CGRect {
        get { settings.withLock { $0.cropRect } }
        set { update(\.cropRect, newValue) }
    }

    /// Whether an image with fewer pixels than the bounds show is enlarged on the CPU into a
    /// bitmap of the bounds' full pixel size (true), or drawn into a smaller bitmap that the
    /// compositor stretches (false, the default). Any thread.
    public var forceUpscaling: Bool {
        get { settings.withLock { $0.forceUpscaling } }
        set { update(\.forceUpscaling, newValue) }
    }

    /// Runs on the display worker on the drawn bitmap (the image decoded, scaled and placed), and
    /// returns what is shown: rounding, borders, effects. It receives the display's `isCancelled`;
    /// poll it in long work. A display cancelled by the time it returns shows nothing new, and a
    /// nil result leaves the node without contents. Not run on the error state. Setting it
    /// redisplays the node. Any thread.
    public var imageModificationBlock: (@Sendable (Bitmap, _ isCancelled: @Sendable () -> Bool) -> Bitmap?)? {
        get { settings.withLock { $0.imageModificationBlock } }
        set {
            settings.withLock { $0.imageModificationBlock = newValue }
            setNeedsDisplay()
        }
    }

    /// Another image node showing the same file, whose decode this node draws from instead of
    /// decoding the file to fit its own bounds: one decode serves both, whichever displays
    /// first (the cache's single flight), and this node scales that bitmap to its own placement.
    /// For an image shown softened, which needs no more pixels than the sharp one has: the
    /// tutorial card's background is its photo, aspect-filled behind the whole card and blurred
    /// by 30 points, drawn from the photo's decode.
    ///
    /// The decode is shared when, at the display, the other node shows the same file through
    /// the same `imageCache`, has been laid out, draws from no other node's decode itself, and
    /// decodes the whole file (not a crop of a mostly hidden image); otherwise this node decodes
    /// as usual. A change of the other node (its bounds, mode or file) does not redisplay this
    /// one: the card's two nodes change together. Its `imageScaleFactor` then says how much it enlarges that decode
    /// (below 1 where its bounds show the image larger than the other node does). Held weakly.
    /// Any thread.
    public var decodeSharedWith: ImageNode? {
        get { settings.withLock { $0.decodeSharedWith } }
        set {
            let changed = settings.withLock { settings -> Bool in
                guard settings.decodeSharedWith !== newValue else { return false }
                settings.decodeSharedWith = newValue
                return true
            }
            if changed { setNeedsDisplay() }
        }
    }

    /// The cache file images are decoded through (default `ImageCache.shared`). Any thread.
    public var imageCache: ImageCache {
        get { settings.withLock { $0.imageCache } }
        set {
            settings.withLock { $0.imageCache = newValue }
            setNeedsDisplay()
        }
    }

    /// The fonts the error state's message is written with (default `FontRegistry.shared`, with
    /// `TextLayout.defaultFont`'s family). Without that family the error state is the grey box
    /// alone. Any thread.
    public var fonts: FontRegistry {
        get { settings.withLock { $0.fonts } }
        set {
            settings.withLock { $0.fonts = newValue }
            setNeedsDisplay()
        }
    }

    /// Whether a file that cannot be read is drawn as the error state (a grey box with the reason
    /// written in it; the default) or leaves the node without contents (say, a decorative image
    /// behind text, whose grey box and words would only clash with the text over it). `lastError`
    /// is set either way. Any thread.
    public var drawsErrorState: Bool {
        get { settings.withLock { $0.drawsErrorState } }
        set { update(\.drawsErrorState, newValue) }
    }

    /// Whether a large JPEG (`ImageDecoder.previewPixels` and more) whose decode is not cached
    /// yet is first shown from the thumbnail its EXIF data carries (`ImageCache.preview`), then
    /// displayed again from the file (Texture's multiplex image node: a quick image first, the
    /// best one when it is ready). The thumbnail is small (about 160 x 120) and enlarged, so
    /// meant for a quick first look, or for an image shown softened. Default false. Any thread.
    public var showsEmbeddedThumbnailFirst: Bool {
        get { settings.withLock { $0.showsEmbeddedThumbnailFirst } }
        set { update(\.showsEmbeddedThumbnailFirst, newValue) }
    }

    /// Whether the node shows its file's embedded thumbnail now, its own display of the file to
    /// come (`showsEmbeddedThumbnailFirst`). Set on the main thread when a display lands; any
    /// thread may read it.
    public var isShowingEmbeddedThumbnail: Bool { settings.withLock { $0.previewLanded } }

    /// Leaving the display range lets a later display start from the embedded thumbnail again
    /// (when the file's decode has left the cache meanwhile). Call super.
    @MainActor
    open override func didExitDisplayState() {
        super.didExitDisplayState()
        settings.withLock {
            $0.previewLanded = false
            $0.fileLanded = false
        }
    }

    // MARK: Animation

    /// Whether an animated GIF or WebP plays while the node is in the visible range (the
    /// default), or shows its first frame only. Frames are decoded on the display workers at the
    /// size the node shows them, a frame or two ahead, and changed by the frame loop
    /// (`ImageAnimations`); leaving the visible range stops the animation and releases its
    /// decoder and frames, and coming back starts it from the first frame. The node must draw
    /// into its own layer: inside a subtree that an ancestor rasterizes into one bitmap, a file
    /// shows its first frame. Any thread.
    public var animatesImage: Bool {
        get { settings.withLock { $0.animatesImage } }
        set {
            guard update(\.animatesImage, newValue) else { return }
            if !newValue { stopAnimationFromAnyThread() }
        }
    }

    /// Holds this node's animation on its current frame (Texture's `animatedImagePaused`); false
    /// resumes it with the next frame. `ImageAnimations.isPaused` holds every node's. Any thread.
    public var animatedImagePaused: Bool {
        get { settings.withLock { $0.animatedImagePaused } }
        set {
            settings.withLock { $0.animatedImagePaused = newValue }
            DisplayScheduler.shared.runLoop?.setNeedsFrame()
        }
    }

    /// How the node's animation is drawn, once a display found its file animated. Any thread.
    var animationPlan: AnimationPlan? { settings.withLock { $0.animationPlan } }

    /// Plays the animation when the node becomes visible. Call super.
    @MainActor
    open override func didEnterVisibleState() {
        super.didEnterVisibleState()
        startAnimationIfNeeded()
    }

    /// Stops the animation (its decoder and frames are released). Call super.
    @MainActor
    open override func didExitVisibleState() {
        super.didExitVisibleState()
        DisplayScheduler.shared.imageAnimations?.stop(self)
    }

    /// Plays the node's animation if it has one, should play and is visible (main thread).
    @MainActor
    private func startAnimationIfNeeded() {
        guard let animations = DisplayScheduler.shared.imageAnimations else { return }
        let plan = settings.withLock { $0.animatesImage ? $0.animationPlan : nil }
        if let plan, interfaceState.contains(.visible) {
            animations.play(self, plan: plan)
        } else {
            animations.stop(self)
        }
    }

    private func stopAnimationFromAnyThread() {
        if Thread.isMainThread {
            MainActor.assumeIsolated { DisplayScheduler.shared.imageAnimations?.stop(self) }
        } else {
            DisplayScheduler.shared.runLoop?.perform { [weak self] in
                guard let self else { return }
                DisplayScheduler.shared.imageAnimations?.stop(self)
            }
        }
    }

    /// Tests: called on the thread that decodes, just before a file is decoded (or taken from
    /// the cache), with the target pixel size and the crop asked for (nil: the whole file).
    var decodeObserver: (@Sendable (_ path: String, _ fitting: CGSize?, _ crop: ImageDecoder.Crop?) -> Void)? {
        get { settings.withLock { $0.decodeObserver } }
        set { settings.withLock { $0.decodeObserver = newValue } }
    }

    @discardableResult
    private func update<Value: Equatable>(_ keyPath: WritableKeyPath<Settings, Value>, _ value: Value) -> Bool {
        let changed = settings.withLock { settings -> Bool in
            guard settings[keyPath: keyPath] != value else { return false }
            settings[keyPath: keyPath] = value
            return true
        }
        if changed { setNeedsDisplay() }
        return changed
    }

    // MARK: What the last display found

    /// Why the image of the last display that landed could not be shown, or nil when it could
    /// (or there was no image). Set on the main thread when that display's contents are set.
    /// Any thread may read it.
    public var lastError: ImageError? { settings.withLock { $0.lastError } }

    /// How many of the drawn image's pixels the last landed display put on each screen pixel:
    /// the pixel size of the image the node drew (a file as decoded, which the decoder fits to
    /// the bounds, so it reads 1 unless the file is smaller than needed; a `Bitmap` as given)
    /// over the screen pixels the image is drawn across (the rect the content mode and crop give
    /// it at the display scale, before clipping to the bounds), taking the larger of the
    /// horizontal and the vertical ratio. 1 is pixel for pixel; 2 means the image holds twice
    /// the pixels needed along an axis (memory wasted); 0.5 that it is enlarged twice (blurry).
    /// Nil before a display lands, without an image, and on error. This is the figure of the
    /// image-scaling debug overlay ("%.2fx", hidden where it reads 1.00x). Set on the main thread
    /// when the display lands (also when a rasterizing ancestor's does); any thread may read it.
    public var imageScaleFactor: CGFloat? { settings.withLock { $0.imageScaleFactor } }

    // MARK: Layout

    /// A `Bitmap` image's size in points; zero (the style decides) for a file or no image.
    /// Any thread.
    open override func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
        let source = settings.withLock { settings in
            settings.wasMeasured = true
            return settings.source
        }
        return Self.intrinsicSize(of: source) ?? .zero
    }

    // MARK: Display

    /// The snapshot a worker draws from: the image source and every option, the bounds, and the
    /// box where the worker reports what it found. Main thread.
    @MainActor
    open func drawParameters() -> Parameters {
        snapshot(isDisplay: true, fill: opaqueFill)
    }

    /// The parameters of a display of the current bounds; a display's (`isDisplay`) also
    /// becomes the one whose outcome `didDisplay` publishes. Any thread.
    private func snapshot(isDisplay: Bool, fill: Color? = nil) -> Parameters {
        let outcome = DisplayOutcome()
        let size = bounds.size
        let label = Tracer.shared.isRecording ? traceLabel : nil
        // The partner's placement, read under its own lock, never while holding this node's.
        let partner = settings.withLock { $0.decodeSharedWith }
        let sharedDecode = partner.flatMap { $0 === self ? nil : $0.sharedDecode() }
        return settings.withLock { settings -> Parameters in
            if isDisplay { settings.pendingOutcome = outcome }
            return Parameters(
                source: settings.source, boundsSize: size, contentMode: settings.contentMode,
                cropRect: settings.cropRect, forceUpscaling: settings.forceUpscaling,
                modification: settings.imageModificationBlock, cache: settings.imageCache,
                fonts: settings.fonts, drawsErrorState: settings.drawsErrorState, outcome: outcome,
                sharedDecode: sharedDecode, decodeObserver: settings.decodeObserver, traceLabel: label,
                animates: settings.animatesImage, fill: fill,
                allowsPreview: isDisplay && settings.showsEmbeddedThumbnailFirst && !settings.previewLanded
                    && !settings.fileLanded)
        }
    }

    /// Decodes the node's file into its `imageCache` now, on the calling thread, as a display of
    /// its current bounds at `scale` will ask for it (the same size, crop and shared decode), so
    /// that display finds it there, or waits for it if it is still decoding (the cache's single
    /// flight). For work ahead of the display: a window's first screen decoded while the window
    /// is made. Does nothing for a `Bitmap` image, no image, or no bounds; a file that cannot be
    /// read is left for the display to report (the cache keeps no error). Returns whether the
    /// file was decoded (the cache keeps it unless it is bigger than the cache's capacity). Any
    /// thread but the main one: it blocks while decoding.
    @discardableResult
    public func preload(scale: CGFloat) -> Bool {
        Self.preload(snapshot(isDisplay: false), scale: scale)
    }

    /// `preload(scale:)` without a node: the file at `path` decoded into `cache` as an image node
    /// of `boundsSize` points with `contentMode` and `cropRect` displays it at `scale` (no
    /// shared decode). For work ahead of nodes that do not exist yet; making a node for it would
    /// ask the display scheduler for frames. Any thread but the main one.
    @discardableResult
    public static func preload(
        contentsOf path: String, boundsSize: CGSize, contentMode: ContentMode, cropRect: CGRect = defaultCropRect,
        scale: CGFloat, cache: ImageCache = .shared
    ) -> Bool {
        preload(
            Parameters(
                source: .file(path), boundsSize: boundsSize, contentMode: contentMode, cropRect: cropRect,
                forceUpscaling: false, modification: nil, cache: cache, fonts: .shared, drawsErrorState: false,
                outcome: DisplayOutcome(), sharedDecode: nil, decodeObserver: nil, traceLabel: nil,
                animates: false, fill: nil, allowsPreview: false),
            scale: scale)
    }

    /// Whether a display of the file at `path` in an image node of `boundsSize` points with
    /// `contentMode` at `scale` would show the file's embedded thumbnail first, given
    /// `showsEmbeddedThumbnailFirst` (a large JPEG carrying one, whose decode `cache` does not
    /// hold and no desktop thumbnail covers: `ImageCache.preview`). Work ahead of the display
    /// (`preload`) may then leave the file to it: the display shows the thumbnail at once, and
    /// the decode comes after. Reads the file's segments, never its image data. Any thread.
    public static func showsEmbeddedThumbnail(
        contentsOf path: String, boundsSize: CGSize, contentMode: ContentMode, cropRect: CGRect = defaultCropRect,
        scale: CGFloat, cache: ImageCache = .shared
    ) -> Bool {
        guard let header = try? ImageHeader.read(contentsOf: path),
            let geometry = ImageGeometry(
                imageSize: CGSize(width: header.width, height: header.height), boundsSize: boundsSize,
                contentMode: contentMode, cropRect: cropRect, scale: scale),
            geometry.visibleCrop(imageWidth: header.width, imageHeight: header.height, boundsSize: boundsSize) == nil
        else { return false }
        let target = geometry.decodeTarget(boundsSize: boundsSize, scale: scale)
        return cache.hasPreview(contentsOf: path, header: header, fitting: target)
    }

    private static func preload(_ p: Parameters, scale: CGFloat) -> Bool {
        guard case .file = p.source, scale.isFinite, scale > 0, p.boundsSize.width > 0, p.boundsSize.height > 0
        else { return false }
        if case .image = prepare(p, size: p.boundsSize, scale: scale, isCancelled: { false }) { return true }
        return false
    }

    /// What another node needs to draw from this node's decode: its file and its placement.
    /// Nil when this node draws from another node's decode itself: decodes are shared one step,
    /// not along chains.
    private func sharedDecode() -> SharedDecode? {
        let size = bounds.size
        guard size.width > 0, size.height > 0 else { return nil }
        return settings.withLock { settings -> SharedDecode? in
            guard case .file(let path) = settings.source, settings.decodeSharedWith == nil else { return nil }
            return SharedDecode(
                path: path, boundsSize: size, contentMode: settings.contentMode, cropRect: settings.cropRect,
                cache: settings.imageCache)
        }
    }

    /// Publishes what the landed display found (`lastError`, `imageScaleFactor`). Main thread;
    /// subclasses call super.
    @MainActor
    open override func didDisplay() {
        super.didDisplay()
        settings.withLock { settings in
            // Each outcome is published once: a hidden node in a rasterized subtree is told of
            // its ancestor's later landings without having been drawn in them.
            defer { settings.pendingOutcome = nil }
            guard let outcome = settings.pendingOutcome?.value else {
                // Nothing drawn (no bounds, hidden, or the modification gave nothing): no frames
                // to play, no thumbnail to replace.
                settings.animationPlan = nil
                settings.previewLanded = false
                return
            }
            if !outcome.isPreview && outcome.error == nil { settings.fileLanded = true }
            settings.lastError = outcome.error
            settings.imageScaleFactor = outcome.scaleFactor
            settings.animationPlan = outcome.animation
            settings.previewLanded = outcome.isPreview
        }
        // The embedded thumbnail is up: now the file itself (through a rasterizing ancestor's
        // display when the node draws into one).
        if settings.withLock({ $0.previewLanded }) { setNeedsDisplay() }
        // A new first frame landed: the animation (if any) starts over from it.
        startAnimationIfNeeded()
    }

    /// The node's bitmap: the image decoded, scaled and placed, at the pixel size the bounds need
    /// at `scale` (smaller without `forceUpscaling` when the image has fewer pixels), then
    /// modified; or the error state; nil without an image or when cancelled. Worker thread.
    open class func display(
        _ p: Parameters, size: CGSize, scale: CGFloat,
        isCancelled: @Sendable () -> Bool
    ) -> Bitmap? {
        let boundsPixels = (width: Int((size.width * scale).rounded(.up)), height: Int((size.height * scale).rounded(.up)))
        guard boundsPixels.width > 0, boundsPixels.height > 0, !isCancelled() else { return nil }
        switch prepare(p, size: size, scale: scale, isCancelled: isCancelled) {
        case .none, .cancelled:
            p.outcome.value = .init(error: nil, scaleFactor: nil)
            return nil
        case .failure(let error):
            guard p.drawsErrorState else {
                p.outcome.value = .init(error: error, scaleFactor: nil)
                return nil
            }
            let context = GraphicsContext(pixelWidth: boundsPixels.width, pixelHeight: boundsPixels.height, scale: scale)
            drawErrorState(error, in: context, size: size, fonts: p.fonts)
            guard !isCancelled() else { return nil }
            p.outcome.value = .init(error: error, scaleFactor: nil)
            return context.makeBitmap()
        case .image(let prepared):
            let backing = prepared.backingPixelSize(boundsPixels: boundsPixels, forceUpscaling: p.forceUpscaling)
            guard
                let result = drawPlaced(
                    prepared, backing: backing, size: size, modification: p.modification, label: p.label,
                    isCancelled: isCancelled)
            else { return nil }
            // An animated file's later frames are drawn the same way, into a bitmap of this size.
            let animation = prepared.animation.flatMap { source -> AnimationPlan? in
                guard p.animates else { return nil }
                return AnimationPlan(
                    path: source.path, boundsSize: size, scale: scale, geometry: prepared.geometry,
                    sourcePixels: prepared.sourcePixels, decodeTarget: source.decodeTarget,
                    backingWidth: backing.width, backingHeight: backing.height, modification: p.modification,
                    fill: p.fill, label: p.label)
            }
            p.outcome.value = .init(
                error: nil, scaleFactor: prepared.scaleFactor, animation: prepared.isPreview ? nil : animation,
                isPreview: prepared.isPreview)
            return result
        }
    }

    /// Draws a prepared image into a bitmap of `backing` pixels over bounds of `size` points, then
    /// runs the modification block on it; nil when cancelled (or the block says so). Worker thread.
    static func drawPlaced(
        _ prepared: PreparedImage, backing: (width: Int, height: Int), size: CGSize,
        modification: (@Sendable (Bitmap, _ isCancelled: @Sendable () -> Bool) -> Bitmap?)?, label: String,
        isCancelled: @Sendable () -> Bool
    ) -> Bitmap? {
        let sx = CGFloat(backing.width) / size.width, sy = CGFloat(backing.height) / size.height
        let context = GraphicsContext(pixelWidth: backing.width, pixelHeight: backing.height, scale: sx)
        if sy != sx { context.scaleBy(x: 1, y: sy / sx) }
        prepared.draw(in: context, size: size)
        guard !isCancelled() else { return nil }
        var result: Bitmap? = context.makeBitmap()
        if let modification, let drawn = result {
            result = Tracer.shared.measure("modify \(label)", category: "image") { modification(drawn, isCancelled) }
        }
        guard !isCancelled() else { return nil }
        return result
    }

    /// Draws the image into a context of the bounds (a rasterizing ancestor's, translated to this
    /// node). Worker thread. The modification block runs on the image drawn at the context's
    /// scale, which is then drawn over the bounds.
    open class func draw(
        _ p: Parameters, in context: GraphicsContext,
        isCancelled: @Sendable () -> Bool
    ) {
        let size = p.boundsSize
        guard size.width > 0, size.height > 0, !isCancelled() else { return }
        switch prepare(p, size: size, scale: context.scale, isCancelled: isCancelled) {
        case .none, .cancelled:
            p.outcome.value = .init(error: nil, scaleFactor: nil)
            return
        case .failure(let error):
            if p.drawsErrorState { drawErrorState(error, in: context, size: size, fonts: p.fonts) }
            p.outcome.value = .init(error: error, scaleFactor: nil)
        case .image(let prepared):
            // What the rasterizing ancestor's landing publishes (it calls didDisplay on its subtree).
            p.outcome.value = .init(error: nil, scaleFactor: prepared.scaleFactor, isPreview: prepared.isPreview)
            guard let modification = p.modification else {
                prepared.draw(in: context, size: size)
                return
            }
            let own = GraphicsContext(size: size, scale: context.scale)
            prepared.draw(in: own, size: size)
            let drawn = own.makeBitmap()
            guard !isCancelled(),
                let modified = Tracer.shared.measure(
                    "modify \(p.label)", category: "image", { modification(drawn, isCancelled) }),
                !isCancelled()
            else { return }
            context.draw(modified, in: CGRect(origin: .zero, size: size), contentMode: .scaleToFill)
        }
    }

    // MARK: The work (worker thread)

    /// The immutable snapshot a display draws from: the source and every option, the bounds,
    /// and the box where the worker reports what it found. Opaque outside Canopy: a subclass
    /// passes it on to `super`.
    public struct Parameters: Sendable {
        let source: Source?
        let boundsSize: CGSize
        let contentMode: ContentMode
        let cropRect: CGRect
        let forceUpscaling: Bool
        let modification: (@Sendable (Bitmap, _ isCancelled: @Sendable () -> Bool) -> Bitmap?)?
        let cache: ImageCache
        let fonts: FontRegistry
        let drawsErrorState: Bool
        let outcome: DisplayOutcome
        /// The node whose decode this one draws from (`decodeSharedWith`), as it was placed.
        let sharedDecode: SharedDecode?
        let decodeObserver: (@Sendable (_ path: String, _ fitting: CGSize?, _ crop: ImageDecoder.Crop?) -> Void)?
        /// The node's name in a trace, when one was recording at the snapshot.
        let traceLabel: String?
        /// Whether an animated file should play (`animatesImage`).
        let animates: Bool
        /// An opaque node's fill, which its frames are flattened over as its displays are.
        let fill: Color?
        /// Whether this display may show the file's embedded thumbnail (`showsEmbeddedThumbnailFirst`,
        /// and the last display did not).
        let allowsPreview: Bool

        var label: String { traceLabel ?? "ImageNode" }
    }

    /// Where the node a decode is shared with shows its file: enough to find the decode it asks
    /// the cache for at the display's scale.
    struct SharedDecode: Sendable {
        let path: String
        let boundsSize: CGSize
        let contentMode: ContentMode
        let cropRect: CGRect
        /// The cache it decodes through: only a decode in the same cache can be shared.
        let cache: ImageCache

        /// The target the other node decodes `path` to at `scale` through `cache`, when it
        /// decodes the whole file (nil when it decodes a crop, uses another cache, or places
        /// nothing).
        func target(path: String, imageSize: CGSize, scale: CGFloat, cache: ImageCache) -> CGSize? {
            guard path == self.path, cache === self.cache,
                let geometry = ImageGeometry(
                    imageSize: imageSize, boundsSize: boundsSize, contentMode: contentMode,
                    cropRect: cropRect, scale: scale),
                geometry.visibleCrop(
                    imageWidth: Int(imageSize.width), imageHeight: Int(imageSize.height), boundsSize: boundsSize)
                    == nil
            else { return nil }
            return geometry.decodeTarget(boundsSize: boundsSize, scale: scale)
        }
    }

    /// What a worker found, handed to the main thread through the parameters.
    final class DisplayOutcome: Sendable {
        struct Value: Sendable {
            var error: ImageError?
            var scaleFactor: CGFloat?
            /// How the file's later frames are drawn, when it is animated and should play.
            var animation: AnimationPlan?
            /// Whether the display showed the file's embedded thumbnail, not the file.
            var isPreview = false
        }
        private let storage = Mutex<Value?>(nil)
        var value: Value? {
            get { storage.withLock { $0 } }
            set { storage.withLock { $0 = newValue } }
        }
    }

    private enum Preparation {
        case none
        case cancelled
        case failure(ImageError)
        case image(PreparedImage)
    }

    /// An image ready to draw: the bitmap, where it goes and what it covers.
    struct PreparedImage {
        /// The bitmap to draw (a file, or a crop of it, decoded to fit; or the given bitmap).
        let bitmap: Bitmap
        /// The source's own pixel size.
        let sourcePixels: CGSize
        /// The placement of the whole image in the bounds.
        let geometry: ImageGeometry
        let scale: CGFloat
        /// Where `bitmap` is drawn: the whole image's rect, or the decoded crop's.
        let drawRect: CGRect
        /// For an animated file: its path and the size its frames are decoded to (whole, never
        /// a crop or another node's decode).
        let animation: (path: String, decodeTarget: CGSize)?
        /// Whether `bitmap` is the file's embedded thumbnail, standing in for its decode.
        var isPreview = false

        init(
            bitmap: Bitmap, sourcePixels: CGSize, geometry: ImageGeometry, scale: CGFloat, drawRect: CGRect? = nil,
            animation: (path: String, decodeTarget: CGSize)? = nil
        ) {
            self.bitmap = bitmap
            self.sourcePixels = sourcePixels
            self.geometry = geometry
            self.scale = scale
            self.drawRect = drawRect ?? geometry.imageRect
            self.animation = animation
        }

        /// The pixels of the image the node holds (the decoded bitmap) over the screen pixels it
        /// is drawn across (those of `drawRect`, so a crop counts against its own part): a file
        /// decoded to fit reads 1, an image too big for its node above 1, one stretched below 1.
        var scaleFactor: CGFloat {
            ImageGeometry.scaleFactor(
                sourcePixels: CGSize(width: bitmap.width, height: bitmap.height), drawnIn: drawRect,
                scale: scale)
        }

        func backingPixelSize(boundsPixels: (width: Int, height: Int), forceUpscaling: Bool) -> (width: Int, height: Int) {
            geometry.backingPixelSize(
                boundsPixels: boundsPixels, sourcePixels: sourcePixels, scale: scale,
                forceUpscaling: forceUpscaling)
        }

        /// Draws the image at its place, clipped to the bounds.
        func draw(in context: GraphicsContext, size: CGSize) {
            context.withSavedState {
                context.clip(to: CGRect(origin: .zero, size: size))
                context.draw(bitmap, in: drawRect, contentMode: .scaleToFill)
            }
        }
    }

    /// Reads the source: its size, its placement, then (for a file) the decode to fit.
    private static func prepare(
        _ p: Parameters, size: CGSize, scale: CGFloat,
        isCancelled: @Sendable () -> Bool
    ) -> Preparation {
        guard let source = p.source else { return .none }
        switch source {
        case .bitmap(let bitmap):
            guard bitmap.width > 0, bitmap.height > 0 else { return .none }
            let sourcePixels = CGSize(width: bitmap.width, height: bitmap.height)
            guard
                let geometry = ImageGeometry(
                    imageSize: bitmap.size, boundsSize: size, contentMode: p.contentMode,
                    cropRect: p.cropRect, scale: scale)
            else { return .none }
            return .image(PreparedImage(bitmap: bitmap, sourcePixels: sourcePixels, geometry: geometry, scale: scale))
        case .file(let path):
            let header: ImageHeader
            do throws(ImageError) {
                header = try ImageHeader.read(contentsOf: path)
            } catch {
                return .failure(error)
            }
            guard !isCancelled() else { return .cancelled }
            let sourcePixels = CGSize(width: header.width, height: header.height)
            // A file is one pixel per point.
            guard
                let geometry = ImageGeometry(
                    imageSize: sourcePixels, boundsSize: size, contentMode: p.contentMode,
                    cropRect: p.cropRect, scale: scale)
            else { return .none }
            // Drawn from another node's decode of the whole file; or, mostly hidden, decode only
            // the visible part, at the size it is drawn; or the whole file, to the pixels it covers.
            let shared = p.sharedDecode?.target(path: path, imageSize: sourcePixels, scale: scale, cache: p.cache)
            let visible =
                shared == nil
                ? geometry.visibleCrop(imageWidth: header.width, imageHeight: header.height, boundsSize: size) : nil
            let target =
                shared ?? visible.map { CGSize(width: $0.rect.width * scale, height: $0.rect.height * scale) }
                ?? geometry.decodeTarget(boundsSize: size, scale: scale)
            // A large JPEG not decoded yet: its embedded thumbnail now, the file at the next display.
            if p.allowsPreview, visible == nil, let preview = p.cache.preview(contentsOf: path, header: header, fitting: target) {
                guard !isCancelled() else { return .cancelled }
                var prepared = PreparedImage(bitmap: preview, sourcePixels: sourcePixels, geometry: geometry, scale: scale)
                prepared.isPreview = true
                return .image(prepared)
            }
            p.decodeObserver?(path, target, visible?.crop)
            let bitmap: Bitmap
            do throws(ImageError) {
                // The decode stops when the display is cancelled (its cell scrolled away); it
                // returns before this does, so the check never outlives the call.
                bitmap = try withoutActuallyEscaping(isCancelled) { check throws(ImageError) in
                    try Tracer.shared.measure("decode \(p.label)", category: "image") { () throws(ImageError) in
                        try p.cache.bitmap(contentsOf: path, fitting: target, cropping: visible?.crop, isCancelled: check)
                    }
                }
            } catch .cancelled {
                return .cancelled
            } catch {
                return .failure(error)
            }
            guard !isCancelled() else { return .cancelled }
            let animates =
                header.isAnimated && p.animates
                && header.width * header.height <= AnimationDecoder.maximumCanvasPixels
            return .image(
                PreparedImage(
                    bitmap: bitmap, sourcePixels: sourcePixels, geometry: geometry, scale: scale,
                    drawRect: visible?.rect,
                    animation: animates ? (path, geometry.decodeTarget(boundsSize: size, scale: scale)) : nil))
        }
    }

    // MARK: The error state

    /// The error state's fill, a neutral grey.
    public static let errorFillColor = Color(white: 0.85)
    /// The error message's colour.
    public static let errorTextColor = Color(white: 0.3)

    /// Fills the bounds grey and writes the error's description in them, centred, wrapped to the
    /// width less 4 pt a side, as many lines as fit (the last one truncated). Any thread that owns
    /// `context`.
    static func drawErrorState(_ error: ImageError, in context: GraphicsContext, size: CGSize, fonts: FontRegistry) {
        let bounds = CGRect(origin: .zero, size: size)
        context.fill(bounds, with: errorFillColor)
        let inset: CGFloat = 4
        let width = size.width - 2 * inset, height = size.height - 2 * inset
        guard width > 0, height > 0 else { return }
        let font = TextLayout.defaultFont.withSize(min(12, max(6, size.height / 3)))
        let text = AttributedString(
            error.description, font: font, color: errorTextColor,
            paragraphStyle: ParagraphStyle(alignment: .center, lineBreakMode: .truncatingTail))
        do throws(FontError) {
            var layout = try TextLayout.make(text, width: width, scale: context.scale, fonts: fonts)
            let fitting = layout.lines.prefix { $0.frame.maxY <= height + 1e-6 }.count
            if fitting < layout.lineCount {
                layout = try TextLayout.make(
                    text, width: width, maximumNumberOfLines: max(1, fitting),
                    scale: context.scale, fonts: fonts)
            }
            let top = ((size.height - layout.size.height) / 2 * context.scale).rounded(.down) / context.scale
            context.withSavedState {
                context.clip(to: bounds)
                layout.draw(in: context, at: CGPoint(x: inset, y: max(0, top)))
            }
        } catch {
            // Without the font the grey box alone marks the failure.
        }
    }
}

/// Where an image lands in a node's bounds, and what that asks of the decoding and the bitmap.
/// Pure arithmetic, any thread.
struct ImageGeometry: Equatable {
    /// The whole image's rect in the bounds, in points (it may overflow them; drawing clips).
    let imageRect: CGRect

    /// Places an image of `imageSize` points in bounds of `boundsSize` (see `ImageNode` for the
    /// rules); nil when nothing would show. Images drawn at their own size (`.center`, the edge
    /// modes) sit on whole pixels at `scale`.
    init?(imageSize: CGSize, boundsSize: CGSize, contentMode: ContentMode, cropRect: CGRect, scale: CGFloat) {
        guard imageSize.width > 0, imageSize.height > 0, boundsSize.width > 0, boundsSize.height > 0,
            imageSize.width.isFinite, imageSize.height.isFinite, boundsSize.width.isFinite, boundsSize.height.isFinite
        else { return nil }
        let bounds = CGRect(origin: .zero, size: boundsSize)
        let crop = Self.usableCrop(cropRect)
        switch (crop, contentMode) {
        case (.some(let crop), .aspectFill), (.some(let crop), .aspectFit), (.some(let crop), .center):
            // Texture: the crop's part of the image is stretched to the bounds.
            let whole = CGSize(width: boundsSize.width / crop.width, height: boundsSize.height / crop.height)
            imageRect = CGRect(
                x: -crop.minX * whole.width, y: -crop.minY * whole.height,
                width: whole.width, height: whole.height)
        default:
            let origin = cropRect.origin
            let alignment = CGPoint(x: origin.x.isFinite ? origin.x : 0.5, y: origin.y.isFinite ? origin.y : 0.5)
            var rect = contentMode.frame(forContentSize: imageSize, in: bounds, alignment: alignment)
            switch contentMode {
            case .scaleToFill, .aspectFit, .aspectFill:
                break
            default:
                let s = scale > 0 && scale.isFinite ? scale : 1
                rect.origin = CGPoint(x: (rect.minX * s).rounded(.down) / s, y: (rect.minY * s).rounded(.down) / s)
            }
            imageRect = rect
        }
        guard imageRect.width > 0, imageRect.height > 0, imageRect.intersects(bounds) else { return nil }
    }

    /// A non-empty crop within the unit square, or nil for an empty one (or one outside it).
    private static func usableCrop(_ cropRect: CGRect) -> CGRect? {
        let crop = cropRect.standardized
        guard crop.width > 0, crop.height > 0, crop.width.isFinite, crop.height.isFinite else { return nil }
        let unit = crop.intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
        guard !unit.isNull, unit.width > 0, unit.height > 0 else { return nil }
        return unit
    }

    /// The pixel size a file is decoded to cover (`ImageDecoder`'s fitting, aspect kept, never
    /// above the file's size): the pixels the whole image is drawn across. An aspect-filled image
    /// that overflows asks for the bounds' pixels, which the decoder turns into the same size
    /// (it covers them), so the request is never bigger than the bounds.
    func decodeTarget(boundsSize: CGSize, scale: CGFloat) -> CGSize {
        let drawn = CGSize(width: imageRect.width * scale, height: imageRect.height * scale)
        let bounds = CGSize(width: boundsSize.width * scale, height: boundsSize.height * scale)
        // Covering the bounds gives the image's scale when one side fits them exactly and the
        // other overflows (aspect fill without a crop).
        let fitsOneSide = abs(drawn.width - bounds.width) < 1e-6 || abs(drawn.height - bounds.height) < 1e-6
        if fitsOneSide && drawn.width >= bounds.width - 1e-6 && drawn.height >= bounds.height - 1e-6 {
            return bounds
        }
        return drawn
    }

    /// A file image is decoded as a crop when the part of it the bounds show has less than this
    /// fraction of its pixels. Below half, the pixels saved are at least as many as those kept;
    /// above it (most photos, even aspect-filled) the whole file is decoded as before.
    static let cropThreshold: CGFloat = 0.5

    /// The part of a `imageWidth` x `imageHeight` pixel image that the bounds show, when it has
    /// under `cropThreshold` of the image's pixels: `crop`, the visible rect (`imageRect` clipped
    /// to the bounds) mapped to the image's pixels and rounded outward to multiples of 8 pixels
    /// (or the image's edge), and `rect`, where that crop lies in the bounds (it may overflow
    /// them by under 8 pixels of the image). Nil when the image is mostly visible.
    func visibleCrop(imageWidth: Int, imageHeight: Int, boundsSize: CGSize) -> (crop: ImageDecoder.Crop, rect: CGRect)? {
        guard imageWidth > 0, imageHeight > 0 else { return nil }
        let visible = imageRect.intersection(CGRect(origin: .zero, size: boundsSize))
        guard !visible.isNull, visible.width > 0, visible.height > 0 else { return nil }
        // Image pixels per point along each axis.
        let perX = CGFloat(imageWidth) / imageRect.width, perY = CGFloat(imageHeight) / imageRect.height
        func span(_ low: CGFloat, _ high: CGFloat, _ limit: Int) -> (Int, Int) {
            // Rounded outward, forgiving float noise (1979.9999999 is 1980), then to multiples of
            // 8 (or the image's edge): a JPEG decoded at a DCT scale of 1/2, 1/4 or 1/8 then
            // covers exactly the crop, and a lossy WebP crop starts on an even pixel, as libwebp
            // requires, so the decoded pixels are exactly those drawn into `rect`.
            let first = min(limit - 1, max(0, Int((low + 1e-6).rounded(.down))))
            let end = min(limit, Int((high - 1e-6).rounded(.up)))
            let alignedFirst = first / 8 * 8
            let alignedEnd = min(limit, (max(first + 1, end) + 7) / 8 * 8)
            return (alignedFirst, alignedEnd)
        }
        let (x0, x1) = span((visible.minX - imageRect.minX) * perX, (visible.maxX - imageRect.minX) * perX, imageWidth)
        let (y0, y1) = span((visible.minY - imageRect.minY) * perY, (visible.maxY - imageRect.minY) * perY, imageHeight)
        let kept = CGFloat(x1 - x0) * CGFloat(y1 - y0)
        guard kept < Self.cropThreshold * CGFloat(imageWidth) * CGFloat(imageHeight) else { return nil }
        let rect = CGRect(
            x: imageRect.minX + CGFloat(x0) / perX, y: imageRect.minY + CGFloat(y0) / perY,
            width: CGFloat(x1 - x0) / perX, height: CGFloat(y1 - y0) / perY)
        return (ImageDecoder.Crop(x: x0, y: y0, width: x1 - x0, height: y1 - y0), rect)
    }

    /// The image's pixels over the screen pixels it is drawn across, the larger of the two axes
    /// (see `ImageNode.imageScaleFactor`).
    func scaleFactor(sourcePixels: CGSize, scale: CGFloat) -> CGFloat {
        Self.scaleFactor(sourcePixels: sourcePixels, drawnIn: imageRect, scale: scale)
    }

    /// The pixels of an image drawn across `rect` over the screen pixels of `rect`, the larger of
    /// the two axes.
    static func scaleFactor(sourcePixels: CGSize, drawnIn rect: CGRect, scale: CGFloat) -> CGFloat {
        max(sourcePixels.width / (rect.width * scale), sourcePixels.height / (rect.height * scale))
    }

    /// The bitmap's pixel size: the bounds' pixels, or without `forceUpscaling` fewer along an
    /// axis where the image would be enlarged, by that enlargement (rounded, at least 1).
    func backingPixelSize(
        boundsPixels: (width: Int, height: Int), sourcePixels: CGSize, scale: CGFloat,
        forceUpscaling: Bool
    ) -> (width: Int, height: Int) {
        guard !forceUpscaling else { return boundsPixels }
        let upX = imageRect.width * scale / sourcePixels.width
        let upY = imageRect.height * scale / sourcePixels.height
        func reduced(_ pixels: Int, _ up: CGFloat) -> Int {
            guard up > 1 + 1e-9, up.isFinite else { return pixels }
            return max(1, min(pixels, Int((CGFloat(pixels) / up).rounded())))
        }
        return (reduced(boundsPixels.width, upX), reduced(boundsPixels.height, upY))
    }
}
