import Foundation
import Synchronization

/// The thread-safe node (Texture's `ASDisplayNode`): a view's worth of state that any thread may
/// create, configure and lay out, backed by a `Layer` that exists only on the main thread.
///
/// Every property is guarded by the node's own lock. The layer is created lazily, on the main
/// thread, the first time `layer` is read (`isNodeLoaded` then turns true and `didLoad()` runs);
/// from then on the properties the layer mirrors (frame, colours, border, corner radius, clipping,
/// alpha, hidden) may only change on the main thread, which applies them to the layer at once.
/// Changing them elsewhere is a bug that `threadAffinityViolation` reports ("Incorrect display
/// node thread affinity"; a debug build stops there).
///
/// Subclasses keep their own state behind their own lock; the class is `@unchecked Sendable` for
/// that reason alone (a non-final class cannot prove it).
open class DisplayNode: LayoutElement, @unchecked Sendable {
    struct State {
        var frame: CGRect = .zero
        var backgroundColor: Color?
        var borderColor: Color?
        var borderWidth: CGFloat = 0
        var cornerRadius: CGFloat = 0
        var clipsToBounds = false
        var alpha: CGFloat = 1
        var isHidden = false
        var isOpaque = false
        var isLayerBacked = false
        var isUserInteractionEnabled = true
        var hitTestSlop = EdgeInsets()
        var subnodes: [DisplayNode] = []
        weak var supernode: DisplayNode?
        var layoutSpecBlock: (@Sendable (DisplayNode, SizeRange) -> any LayoutElement)?
        var automaticallyManagesSubnodes = false
        var calculatedLayout: Layout?
        var name: String?
        // Display (DisplayNode+Display).
        var displaysAsynchronously = true
        var expectsLongDisplay = false
        var displaySuspended = false
        var needsDisplay = false
        var isTransactionContainer = false
        /// The container's open transaction; the group holds it until it completes.
        weak var transaction: AsyncTransaction?
        /// Waiting in the DisplayScheduler (one entry per node however often it asks).
        var isScheduled = false
        var rasterizesSubtree = false
        // Placeholders and fades (DisplayNode+Placeholder).
        var placeholderEnabled = false
        var placeholderColor: Color? = DisplayNode.defaultPlaceholderColor
        var placeholderFadeDuration: TimeInterval = 0
        var contentsFadeDuration: TimeInterval = 0
        /// The node's own contents have landed (or it has nothing of its own to draw).
        var hasDisplayed = false
        /// The placeholder on top of the node's layer while it waits (main thread).
        var placeholder: Placeholder?
        // Interface state (DisplayNode+InterfaceState).
        var interfaceState: InterfaceState = []
        /// How urgent the node's displays are, when a range controller said (by distance).
        var displayPriority: DisplayPriority?
    }

    public let style = Style()
    public let layoutCache = LayoutCache()
    let state = Mutex(State())
    private let loadedLayer = Mutex<Layer?>(nil)
    /// Moves on with every display, cancel and suspension: work started under an older value is stale.
    let displaySentinel = Atomic<UInt64>(0)

    /// How the node's class draws (nil: nothing of its own), found once, when the node is made;
    /// never changed after.
    private var contentDrawer: ContentDrawer?

    public init() {
        contentDrawer = ContentDrawer.of(self)
    }

    /// A node that goes hands its loaded layer to the main thread, which releases it within a
    /// budget (`DisplayScheduler`), so a layer never dies on a worker.
    deinit {
        if let layer = loadedLayer.withLock({ $0 }) {
            DisplayScheduler.shared.releaseOnMainThread(layer)
        }
    }

    // MARK: Layout (LayoutElement); see also DisplayNode+Layout

    /// The node's layout spec for `constrainedSize` (any thread). Override it, or set
    /// `layoutSpecBlock`; the default returns the block's spec, or none (the node is then a leaf
    /// sized by `calculateSizeThatFits`).
    open func layoutSpecThatFits(_ constrainedSize: SizeRange) -> any LayoutElement {
        if let block = state.withLock({ $0.layoutSpecBlock }) { return block(self, constrainedSize) }
        return NoLayoutSpec.shared
    }

    /// A leaf node's size for the largest size it may take (any thread); subclasses with content
    /// (text, images) override it. The default is zero: the style and range decide.
    open func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
        .zero
    }

    /// The node's layout: its spec laid out, with the nodes in it as the sublayouts (specs between
    /// them flattened away, positions made relative to this node); or, for a leaf, its size.
    open func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        let spec = layoutSpecThatFits(constrainedSize)
        if spec === NoLayoutSpec.shared { return leafLayout(constrainedSize) }
        let specLayout = spec.layoutThatFits(constrainedSize, parentSize: constrainedSize.max)
        var nodes: [Layout] = []
        if specLayout.element is DisplayNode {
            nodes = [specLayout]  // the spec is a node itself
        } else {
            Self.collectNodeLayouts(specLayout, offset: .zero, into: &nodes)
        }
        let size = constrainedSize.clamp(specLayout.size)
        return Layout(
            element: self, size: size, sublayouts: nodes,
            ascender: specLayout.ascender, descender: specLayout.descender)
    }

    /// The topmost nodes of a spec layout, positioned relative to its origin.
    private static func collectNodeLayouts(_ layout: Layout, offset: CGPoint, into nodes: inout [Layout]) {
        for sublayout in layout.sublayouts {
            let origin = CGPoint(x: offset.x + sublayout.position.x, y: offset.y + sublayout.position.y)
            if sublayout.element is DisplayNode {
                nodes.append(sublayout.positioned(at: origin))
            } else {
                collectNodeLayouts(sublayout, offset: origin, into: &nodes)
            }
        }
    }

    // MARK: Display override points; see also DisplayNode+Display

    /// Whether the node draws contents of its own: whether it adopts `ContentDrawing`.
    public var drawsContents: Bool { contentDrawer != nil }

    /// Whether the node has contents to display: its own drawing or its rasterized subtree.
    var hasOwnDrawing: Bool { drawsContents || rasterizesSubtree }

    /// Whether the node draws its whole subtree into its own one bitmap (Texture's
    /// shouldRasterizeDescendants): each subnode translated to its frame, clipped when it clips,
    /// rounded when it has a corner radius, with its background, border and alpha, so that the
    /// bitmap looks like the subnodes' layers composited (see `RasterizedSubtree`). The subtree is
    /// cut at this node's bounds. The subnodes then have no layers of their own, and a change in
    /// any of them redisplays this node. Set it before the node loads.
    public var rasterizesSubtree: Bool {
        get { state.withLock { $0.rasterizesSubtree } }
        set { state.withLock { $0.rasterizesSubtree = newValue } }
    }

    /// The node's drawing, captured for a display: its snapshot and its class's drawing, nil for
    /// a node without contents of its own (not `ContentDrawing`). Main thread.
    @MainActor
    func captureOwnDrawing() -> CapturedDrawing? {
        contentDrawer?.capture(self)
    }

    // MARK: Placeholder override points; see also DisplayNode+Placeholder

    /// The image drawn centred on the placeholder, at its own size. Main thread, once, when the
    /// placeholder is made; the default is none.
    @MainActor
    open func placeholderImage() -> Bitmap? { nil }

    /// Whether placeholders in this node's subtree are never shown (a `CellNode` with
    /// `neverShowPlaceholders` says yes: its display is waited for instead).
    open var suppressesPlaceholders: Bool { false }

    /// Main thread, before a display starts.
    @MainActor
    open func willDisplay() {}

    /// Main thread, after new contents were set on the layer.
    @MainActor
    open func didDisplay() {}

    /// Main thread, on a container, when every display of its transaction has landed.
    @MainActor
    open func hierarchyDisplayDidFinish() {}

    // MARK: Interface state override points; see DisplayNode+InterfaceState

    /// The node came near enough to the viewport to fetch what it needs (files, data). Main thread.
    /// Call super.
    @MainActor
    open func didEnterPreloadState() {}

    /// The node left the preload range: release what preloading fetched. Main thread. Call super.
    @MainActor
    open func didExitPreloadState() {}

    /// The node entered the display range: its display has been resumed (it draws on the workers
    /// before it is seen). Main thread. Call super.
    @MainActor
    open func didEnterDisplayState() {}

    /// The node left the display range: its display was suspended and its contents cleared.
    /// Main thread. Call super.
    @MainActor
    open func didExitDisplayState() {}

    /// At least one of the node's points is in the viewport now. Main thread. Call super.
    @MainActor
    open func didEnterVisibleState() {}

    /// The node left the viewport. Main thread. Call super.
    @MainActor
    open func didExitVisibleState() {}

    /// After the didEnter/didExit calls of one change, with the new and the old state. Main
    /// thread. Call super.
    @MainActor
    open func interfaceStateDidChange(_ newState: InterfaceState, from oldState: InterfaceState) {}

    // MARK: Hit testing override points; see also DisplayNode+HitTesting

    /// Whether `point`, in the node's own coordinates, is in its tappable area: the bounds with
    /// `hitTestSlop` applied (negative insets grow it, positive shrink it). Main thread.
    /// Subclasses that take the pointer in a different shape override it.
    @MainActor
    open func point(inside point: CGPoint) -> Bool {
        isInTappableArea(point)
    }

    /// The frontmost node of this subtree that takes the pointer at `point` (in the node's own
    /// coordinates), or nil: see DisplayNode+HitTesting for the rules. Main thread. Subclasses
    /// that refuse the pointer (a disabled control) override it and call super otherwise.
    @MainActor
    open func hitTest(_ point: CGPoint) -> DisplayNode? {
        defaultHitTest(point)
    }

    // MARK: Thread affinity

    private static let violationHandler = Mutex<@Sendable (_ message: String) -> Void>({ message in
        assertionFailure(message)
    })

    /// Called when a loaded node's layer state is changed off the main thread. The default stops a
    /// debug build (`assertionFailure`) and does nothing in a release build; tests replace it.
    public static var threadAffinityViolation: @Sendable (_ message: String) -> Void {
        get { violationHandler.withLock { $0 } }
        set { violationHandler.withLock { $0 = newValue } }
    }

    /// Checks the rule before a change of layer state: allowed on any thread until the node is
    /// loaded, on the main thread after.
    func checkThreadAffinity(_ property: String) {
        if isNodeLoaded && !Thread.isMainThread {
            Self.threadAffinityViolation(
                "Incorrect display node thread affinity: \(property) of a loaded "
                    + "\(type(of: self)) set off the main thread")
        }
    }

    // MARK: The layer

    /// Whether the layer exists (any thread).
    public var isNodeLoaded: Bool { loadedLayer.withLock { $0 != nil } }

    /// The node's layer, created on first use with every property applied, then `didLoad()`.
    /// Main thread only.
    @MainActor
    public var layer: Layer {
        if let layer = loadedLayer.withLock({ $0 }) { return layer }
        let layer = Layer()
        layer.name = name ?? String(describing: type(of: self))
        loadedLayer.withLock { $0 = layer }
        applyState(to: layer)
        if !rasterizesSubtree {
            for subnode in subnodes { layer.addSublayer(subnode.layer) }
        }
        showPlaceholderIfNeeded()
        didLoad()
        if hasOwnDrawing || state.withLock({ $0.needsDisplay }) { setNeedsDisplay() }
        return layer
    }

    /// The layer if loaded, without creating it (main thread).
    @MainActor
    public var layerIfLoaded: Layer? { loadedLayer.withLock { $0 } }

    /// Called once on the main thread right after the layer is created; subclasses set up
    /// main-thread-only state here. Call super.
    @MainActor
    open func didLoad() {}

    @MainActor
    private func applyState(to layer: Layer) {
        let s = state.withLock { $0 }
        layer.frame = s.frame
        layer.backgroundColor = s.backgroundColor
        layer.borderColor = s.borderColor
        layer.borderWidth = s.borderWidth
        layer.cornerRadius = s.cornerRadius
        layer.clipsToBounds = s.clipsToBounds
        layer.alpha = s.alpha
        layer.isHidden = s.isHidden
    }

    /// Sets one layer-mirrored property: under the lock, then on the layer if loaded (main thread).
    private func setLayerProperty<Value>(
        _ name: String, _ keyPath: WritableKeyPath<State, Value>, _ value: Value,
        apply: @MainActor (Layer, Value) -> Void
    ) where Value: Sendable {
        checkThreadAffinity(name)
        state.withLock { $0[keyPath: keyPath] = value }
        // Inside a rasterized subtree the change shows through the rasterizing ancestor's bitmap.
        rasterizingAncestor?.setNeedsDisplay()
        guard Thread.isMainThread else { return }
        MainActor.assumeIsolated {
            if let layer = layerIfLoaded { apply(layer, value) }
        }
    }

    // MARK: Properties mirrored by the layer

    /// The node's frame in its supernode's coordinates.
    public var frame: CGRect {
        get { state.withLock { $0.frame } }
        set {
            let resized = state.withLock { $0.frame.size } != newValue.size
            setLayerProperty("frame", \.frame, newValue) { [weak self] layer, frame in
                layer.frame = frame
                self?.layoutPlaceholder()
            }
            // New bounds need new contents at the new size (Texture's needsDisplayOnBoundsChange).
            if resized && hasOwnDrawing { setNeedsDisplay() }
        }
    }

    /// The node's own coordinate space: its size at the origin.
    public var bounds: CGRect { CGRect(origin: .zero, size: frame.size) }

    /// The centre of the frame (a layer's position, its anchor point being the centre).
    public var position: CGPoint {
        get { let f = frame; return CGPoint(x: f.midX, y: f.midY) }
        set {
            let size = frame.size
            frame = CGRect(
                x: newValue.x - size.width / 2, y: newValue.y - size.height / 2,
                width: size.width, height: size.height)
        }
    }

    public var backgroundColor: Color? {
        get { state.withLock { $0.backgroundColor } }
        set { setLayerProperty("backgroundColor", \.backgroundColor, newValue) { $0.backgroundColor = $1 } }
    }
    public var borderColor: Color? {
        get { state.withLock { $0.borderColor } }
        set { setLayerProperty("borderColor", \.borderColor, newValue) { $0.borderColor = $1 } }
    }
    public var borderWidth: CGFloat {
        get { state.withLock { $0.borderWidth } }
        set { setLayerProperty("borderWidth", \.borderWidth, newValue) { $0.borderWidth = $1 } }
    }
    public var cornerRadius: CGFloat {
        get { state.withLock { $0.cornerRadius } }
        set { setLayerProperty("cornerRadius", \.cornerRadius, newValue) { $0.cornerRadius = $1 } }
    }
    public var clipsToBounds: Bool {
        get { state.withLock { $0.clipsToBounds } }
        set { setLayerProperty("clipsToBounds", \.clipsToBounds, newValue) { $0.clipsToBounds = $1 } }
    }
    public var alpha: CGFloat {
        get { state.withLock { $0.alpha } }
        set { setLayerProperty("alpha", \.alpha, newValue) { $0.alpha = $1 } }
    }
    public var isHidden: Bool {
        get { state.withLock { $0.isHidden } }
        set { setLayerProperty("isHidden", \.isHidden, newValue) { $0.isHidden = $1 } }
    }

    // MARK: Other properties

    /// Whether the node's contents cover its bounds, as Texture's `opaque`: its display starts
    /// from its background colour (black when it has none; a translucent one over black) and its
    /// bitmap is opaque, so the compositor draws it without blending and skips what is behind.
    /// Takes effect at the next display.
    public var isOpaque: Bool {
        get { state.withLock { $0.isOpaque } }
        set { state.withLock { $0.isOpaque = newValue } }
    }

    /// What an opaque node's display starts from: its background over black; nil when the node
    /// is not opaque.
    var opaqueFill: Color? {
        state.withLock { $0.isOpaque ? ($0.backgroundColor ?? Color(white: 0)).opaqueOverBlack : nil }
    }
    /// Texture's layer-backed nodes have no view; here every node has a layer, and the flag records
    /// the intent (a layer-backed node takes no input).
    public var isLayerBacked: Bool {
        get { state.withLock { $0.isLayerBacked } }
        set { state.withLock { $0.isLayerBacked = newValue } }
    }
    public var isUserInteractionEnabled: Bool {
        get { state.withLock { $0.isUserInteractionEnabled && !$0.isLayerBacked } }
        set { state.withLock { $0.isUserInteractionEnabled = newValue } }
    }
    /// Grows (negative insets) or shrinks (positive) the area that takes the pointer.
    public var hitTestSlop: EdgeInsets {
        get { state.withLock { $0.hitTestSlop } }
        set { state.withLock { $0.hitTestSlop = newValue } }
    }
    /// A name for debugging, traces and the layer.
    public var name: String? {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    // MARK: The node tree

    public var subnodes: [DisplayNode] { state.withLock { $0.subnodes } }
    public var supernode: DisplayNode? { state.withLock { $0.supernode } }

    public func addSubnode(_ subnode: DisplayNode) {
        insertSubnode(subnode, at: subnodes.count)
    }

    /// Inserts `subnode` at `index` (clamped), removing it from its old supernode first.
    public func insertSubnode(_ subnode: DisplayNode, at index: Int) {
        precondition(subnode !== self, "a node cannot be its own subnode")
        subnode.removeFromSupernode()
        checkThreadAffinity("subnodes")
        state.withLock { state in
            state.subnodes.insert(subnode, at: max(0, min(index, state.subnodes.count)))
        }
        subnode.state.withLock { $0.supernode = self }
        rasterizingAncestor?.setNeedsDisplay()
        if Thread.isMainThread {
            MainActor.assumeIsolated {
                // A node joining a node in range takes its interface state (Texture's
                // range-managed subtrees do the same); a parent with none (a collection's
                // content node) leaves its cells' states to the range controller.
                let inherited = interfaceState
                if !inherited.isEmpty && inherited != subnode.interfaceState {
                    subnode.recursivelySetInterfaceState(inherited)
                }
                syncSublayers()
                // A cell that never shows placeholders is displayed before it can be seen: the
                // main thread waits for its display (running on the workers) as it joins a loaded
                // tree (Texture's neverShowPlaceholders).
                if subnode.suppressesPlaceholders && isNodeLoaded && rasterizingAncestor == nil && !rasterizesSubtree {
                    subnode.recursivelyEnsureDisplaySynchronously(true)
                }
            }
        }
    }

    /// Removes the node from its supernode (and its layer from the supernode's layer).
    public func removeFromSupernode() {
        guard let parent = supernode else { return }
        parent.checkThreadAffinity("subnodes")
        parent.state.withLock { $0.subnodes.removeAll { $0 === self } }
        (parent.rasterizesSubtree ? parent : parent.rasterizingAncestor)?.setNeedsDisplay()
        state.withLock { $0.supernode = nil }
        if Thread.isMainThread {
            MainActor.assumeIsolated { layerIfLoaded?.removeFromSuperlayer() }
        }
    }

    /// Makes the loaded layer's sublayers match the subnodes (loading the subnodes' layers).
    @MainActor
    func syncSublayers() {
        guard let layer = layerIfLoaded else { return }
        let placeholder = state.withLock { $0.placeholder?.layer }.map { [$0] } ?? []
        if rasterizesSubtree {
            layer.setSublayers(placeholder)
            setNeedsDisplay()
        } else {
            layer.setSublayers(subnodes.map(\.layer) + placeholder)
        }
    }
}
