import Foundation
import Synchronization

/// A control with a title, an image and a background image per state (Texture's `ASButtonNode`).
///
/// Content: `setTitle(_:font:color:for:)` / `setAttributedTitle(_:for:)`, `setImage(_:for:)` and
/// `setBackgroundImage(_:for:)` keep one value for each of the states Texture keeps: `.normal`,
/// `.highlighted`, `.selected`, `[.selected, .highlighted]` and `.disabled` (`storedStates`).
/// Setting a value for any other combination does nothing and reading one gives the normal
/// state's, as in Texture. What is shown follows Texture's fallback, for each of the three apart:
/// the disabled value when the button is disabled and has one; else the selected-highlighted value
/// when it is both and has one; else the highlighted value when highlighted; else the selected
/// value when selected; else the normal value. So a disabled button without disabled content shows
/// its highlighted or selected content, and a selected, highlighted button without its own content
/// shows the highlighted content before the selected.
///
/// Subnodes: `titleNode` (a `TextNode`), `imageNode` and `backgroundImageNode` (`ImageNode`s, the
/// background stretched: `.scaleToFill`). They are layer-backed (they take no pointer: the button
/// is what a hit test finds) and managed automatically: a layout places only the ones with
/// content, so the button gains and loses subnodes as its shown content changes. Configure their
/// other properties (`titleNode.fonts`, `maximumNumberOfLines`, `displaysAsynchronously`...)
/// directly; their content belongs to the button, which replaces it on every state change.
///
/// Layout (`layoutSpecThatFits`, Texture's): a stack of the image and the title (the image first
/// with `imageAlignment` `.beginning`), horizontal when `laysOutHorizontally`, `contentSpacing`
/// apart, placed by `contentHorizontalAlignment` and `contentVerticalAlignment`; inset by
/// `contentEdgeInsets`; with the background image behind the whole (insets included). The title
/// shrinks first when room is short (`flexShrink` 1).
///
/// Threads: content and layout settings are kept under the button's own lock and may be set from
/// any thread; the shown content changes at once (the subnodes' own properties are any-thread),
/// from the current `controlState`. A change that alters what is shown, or a layout setting,
/// invalidates cached layouts. A button that has a layout (`calculatedLayout`) then lays its
/// content out again within its bounds on the main thread: at once when the change is made there,
/// at the main loop's next turn when it is made elsewhere on a loaded button. An unloaded button
/// changed on another thread is laid out again by its owner's next layout, as in Texture, where
/// only a loaded node lays itself out. The button keeps its size: if the new content needs another
/// one, the owner measures it again. State changes reach the button through `stateDidChange(from:)`
/// on the main thread.
///
/// Like every control it is enabled by default and takes the pointer once it has an action
/// (`addAction(for:_:)`); a `NodeInputRouter` then delivers its presses and asks for the hand
/// cursor over it.
open class ButtonNode: ControlNode, @unchecked Sendable {
    /// Where the content goes across the button's width (Texture's `ASHorizontalAlignment`). In a
    /// horizontal button it sets the stack's `justifyContent`, in a vertical one its `alignItems`.
    public enum HorizontalAlignment: Sendable, Hashable {
        /// The stack's own default (justified to the start, or children stretched across).
        case none
        case left, middle, right
    }

    /// Where the content goes across the button's height (Texture's `ASVerticalAlignment`). In a
    /// horizontal button it sets the stack's `alignItems`, in a vertical one its `justifyContent`.
    public enum VerticalAlignment: Sendable, Hashable {
        /// The stack's own default (children stretched across, or justified to the start).
        case none
        case top, center, bottom
    }

    /// Whether the image comes before the title (left of it, or above it) or after.
    public enum ImageAlignment: Sendable, Hashable {
        case beginning, end
    }

    /// The states a button keeps content for (Texture's five).
    public static let storedStates: [ControlState] = [
        .normal, .highlighted, .selected,
        [.selected, .highlighted], .disabled,
    ]

    private struct Storage {
        var titles: [ControlState: AttributedString] = [:]
        var images: [ControlState: Bitmap] = [:]
        var backgroundImages: [ControlState: Bitmap] = [:]
        var contentSpacing: CGFloat = 8
        var laysOutHorizontally = true
        var contentHorizontalAlignment = HorizontalAlignment.middle
        var contentVerticalAlignment = VerticalAlignment.center
        var contentEdgeInsets = EdgeInsets.zero
        var imageAlignment = ImageAlignment.beginning
    }

    /// The title shown for the current state.
    public let titleNode = TextNode()
    /// The image shown for the current state, before or after the title.
    public let imageNode = ImageNode()
    /// The background image shown for the current state, stretched over the whole button.
    public let backgroundImageNode = ImageNode()

    private let storage = Mutex(Storage())
    /// A change made off the main thread owes the loaded button a relayout at the next turn.
    private let relayout = CoalescedMainThreadWork()
    /// Serialises choosing the shown content and handing it to the subnodes, so the last update
    /// to run, whichever thread it runs on, shows the latest content for the latest state.
    private let contentUpdate = Mutex(())

    public override init() {
        super.init()
        automaticallyManagesSubnodes = true
        titleNode.isLayerBacked = true
        titleNode.style.flexShrink = 1
        imageNode.isLayerBacked = true
        backgroundImageNode.isLayerBacked = true
        backgroundImageNode.contentMode = .scaleToFill
    }

    // MARK: Content per state (any thread)

    /// Sets the title of `state` to `title` in `font` (default `TextLayout.defaultFont`) and
    /// `color` (default black), as Texture's `setTitle:withFont:withColor:forState:`.
    public func setTitle(_ title: String, font: Font? = nil, color: Color? = nil, for state: ControlState) {
        setAttributedTitle(
            AttributedString(
                title, font: font ?? TextLayout.defaultFont,
                color: color ?? TextLayout.defaultForegroundColor),
            for: state)
    }

    /// Sets the title of `state` (nil removes it: the state falls back). Ignored for a state
    /// outside `storedStates`.
    public func setAttributedTitle(_ title: AttributedString?, for state: ControlState) {
        setContent(\.titles, title, for: state)
    }

    /// The title set for `state` (the normal state's for a state outside `storedStates`), not the
    /// fallback: nil when none was set.
    public func attributedTitle(for state: ControlState) -> AttributedString? {
        storage.withLock { $0.titles[Self.storedState(state)] }
    }

    /// Sets the image of `state` (nil removes it). Ignored for a state outside `storedStates`.
    public func setImage(_ image: Bitmap?, for state: ControlState) {
        setContent(\.images, image, for: state)
    }

    /// The image set for `state` (the normal state's for a state outside `storedStates`).
    public func image(for state: ControlState) -> Bitmap? {
        storage.withLock { $0.images[Self.storedState(state)] }
    }

    /// Sets the background image of `state` (nil removes it). Ignored for a state outside
    /// `storedStates`.
    public func setBackgroundImage(_ image: Bitmap?, for state: ControlState) {
        setContent(\.backgroundImages, image, for: state)
    }

    /// The background image set for `state` (the normal state's for a state outside
    /// `storedStates`).
    public func backgroundImage(for state: ControlState) -> Bitmap? {
        storage.withLock { $0.backgroundImages[Self.storedState(state)] }
    }

    /// `state` if the button keeps content for it, else `.normal` (Texture's getters' default).
    private static func storedState(_ state: ControlState) -> ControlState {
        storedStates.contains(state) ? state : .normal
    }

    private func setContent<Value>(
        _ keyPath: WritableKeyPath<Storage, [ControlState: Value]>, _ value: Value?,
        for state: ControlState
    ) {
        guard Self.storedStates.contains(state) else { return }
        storage.withLock { $0[keyPath: keyPath][state] = value }
        updateShownContent()
    }

    /// The value shown in `state` among `values`: Texture's fallback (see the type's notes).
    private static func shown<Value>(_ values: [ControlState: Value], in state: ControlState) -> Value? {
        let highlighted = state.contains(.highlighted), selected = state.contains(.selected)
        if state.contains(.disabled), let value = values[.disabled] { return value }
        if highlighted && selected, let value = values[[.selected, .highlighted]] { return value }
        if highlighted, let value = values[.highlighted] { return value }
        if selected, let value = values[.selected] { return value }
        return values[.normal]
    }

    /// Hands the subnodes the content of the current state; lays out again if what is shown changed.
    /// Any thread.
    private func updateShownContent() {
        let changed = contentUpdate.withLock { _ -> Bool in
            let state = controlState
            let (title, image, background) = storage.withLock { s in
                (
                    Self.shown(s.titles, in: state) ?? AttributedString(), Self.shown(s.images, in: state),
                    Self.shown(s.backgroundImages, in: state)
                )
            }
            var changed = false
            if titleNode.attributedText != title {
                titleNode.attributedText = title
                changed = true
            }
            if imageNode.image !== image {
                imageNode.image = image
                changed = true
            }
            if backgroundImageNode.image !== background {
                backgroundImageNode.image = background
                changed = true
            }
            return changed
        }
        if changed { contentLayoutDidChange() }
    }

    /// Shows the content of the new state. Main thread; subclasses call super.
    @MainActor
    open override func stateDidChange(from oldState: ControlState) {
        super.stateDidChange(from: oldState)
        updateShownContent()
    }

    // MARK: Layout settings (any thread)

    /// The space between the image and the title. Default 8 (Texture's).
    public var contentSpacing: CGFloat {
        get { storage.withLock { $0.contentSpacing } }
        set { updateLayoutSetting(\.contentSpacing, newValue) }
    }

    /// Whether the image and the title sit side by side (true, the default) or one above the other.
    public var laysOutHorizontally: Bool {
        get { storage.withLock { $0.laysOutHorizontally } }
        set { updateLayoutSetting(\.laysOutHorizontally, newValue) }
    }

    /// Where the content goes across the width. Default `.middle`.
    public var contentHorizontalAlignment: HorizontalAlignment {
        get { storage.withLock { $0.contentHorizontalAlignment } }
        set { updateLayoutSetting(\.contentHorizontalAlignment, newValue) }
    }

    /// Where the content goes across the height. Default `.center`.
    public var contentVerticalAlignment: VerticalAlignment {
        get { storage.withLock { $0.contentVerticalAlignment } }
        set { updateLayoutSetting(\.contentVerticalAlignment, newValue) }
    }

    /// Space around the image and the title, inside the background image. Default zero.
    public var contentEdgeInsets: EdgeInsets {
        get { storage.withLock { $0.contentEdgeInsets } }
        set { updateLayoutSetting(\.contentEdgeInsets, newValue) }
    }

    /// Whether the image comes before the title (the default) or after it.
    public var imageAlignment: ImageAlignment {
        get { storage.withLock { $0.imageAlignment } }
        set { updateLayoutSetting(\.imageAlignment, newValue) }
    }

    private func updateLayoutSetting<Value: Equatable>(_ keyPath: WritableKeyPath<Storage, Value>, _ value: Value) {
        let changed = storage.withLock { s -> Bool in
            guard s[keyPath: keyPath] != value else { return false }
            s[keyPath: keyPath] = value
            return true
        }
        if changed { contentLayoutDidChange() }
    }

    // MARK: Layout

    /// The image and title stack, inset by `contentEdgeInsets`, over the background image; only
    /// the subnodes with content take part. Any thread.
    open override func layoutSpecThatFits(_ constrainedSize: SizeRange) -> any LayoutElement {
        let s = storage.withLock { $0 }
        let horizontal = s.laysOutHorizontally
        let stack = StackLayoutSpec(direction: horizontal ? .horizontal : .vertical, spacing: s.contentSpacing)
        let mainAxis: AlignmentSetting =
            horizontal
            ? .horizontal(s.contentHorizontalAlignment)
            : .vertical(s.contentVerticalAlignment)
        let crossAxis: AlignmentSetting =
            horizontal
            ? .vertical(s.contentVerticalAlignment)
            : .horizontal(s.contentHorizontalAlignment)
        if let justify = mainAxis.justifyContent { stack.justifyContent = justify }
        if let align = crossAxis.alignItems { stack.alignItems = align }

        var children: [any LayoutElement] = []
        if imageNode.image != nil { children.append(imageNode) }
        if !titleNode.attributedText.characters.isEmpty {
            if s.imageAlignment == .beginning {
                children.append(titleNode)
            } else {
                children.insert(titleNode, at: 0)
            }
        }
        stack.children = children

        var spec: any LayoutElement = stack
        if s.contentEdgeInsets != .zero {
            spec = InsetLayoutSpec(insets: s.contentEdgeInsets, child: spec)
        }
        if backgroundImageNode.image != nil {
            spec = BackgroundLayoutSpec(child: spec, background: backgroundImageNode)
        }
        return spec
    }

    /// An alignment setting as the stack property it maps to (Texture's stack utilities).
    private enum AlignmentSetting {
        case horizontal(HorizontalAlignment)
        case vertical(VerticalAlignment)

        var justifyContent: StackLayoutSpec.JustifyContent? {
            switch self {
            case .horizontal(.left), .vertical(.top): .start
            case .horizontal(.middle), .vertical(.center): .center
            case .horizontal(.right), .vertical(.bottom): .end
            case .horizontal(.none), .vertical(.none): nil
            }
        }

        var alignItems: StackLayoutSpec.AlignItems? {
            switch self {
            case .horizontal(.left), .vertical(.top): .start
            case .horizontal(.middle), .vertical(.center): .center
            case .horizontal(.right), .vertical(.bottom): .end
            case .horizontal(.none), .vertical(.none): nil
            }
        }
    }

    /// What is shown or how it is arranged changed: cached layouts are stale, and a button that
    /// has a layout lays its content out again within its bounds on the main thread (see the type's
    /// notes). Any thread.
    private func contentLayoutDidChange() {
        let hadLayout = calculatedLayout != nil
        setNeedsLayout()
        if Thread.isMainThread {
            MainActor.assumeIsolated {
                let owed = relayout.takePending()
                if hadLayout || owed { relayoutContent() }
            }
        } else if isNodeLoaded && hadLayout {
            relayout.post { [self] in relayoutContent() }
        }
    }

    /// Lays the content out again at the button's current size. Main thread.
    @MainActor
    private func relayoutContent() {
        applyLayout(calculateLayoutThatFits(SizeRange(exactly: bounds.size)))
    }
}
