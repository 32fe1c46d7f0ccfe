import Foundation

/// What the range overlay draws, taken from a collection on the main thread each frame.
public struct RangeOverlaySnapshot: Sendable, Equatable {
    /// The interface state of one item, for the overlay.
    public enum ItemState: Sendable, Equatable { case visible, display, preload, none }

    public struct Item: Sendable, Equatable {
        public var frame: CGRect  // content coordinates
        public var state: ItemState
        public var isAllocated: Bool  // whether the item has its node yet

        public init(frame: CGRect, state: ItemState, isAllocated: Bool) {
            self.frame = frame
            self.state = state
            self.isAllocated = isAllocated
        }
    }

    public var contentSize: CGSize
    public var viewport: CGRect  // content coordinates (origin.y = scroll offset)
    public var displayRange: CGRect  // content coordinates
    public var preloadRange: CGRect  // content coordinates
    /// The items near the viewport (those in or around the preload range), in content coordinates.
    public var items: [Item]
    /// Where the collection's viewport is in the window (to tint on-screen cells: window = content - viewport.origin + viewportInWindow.origin).
    public var viewportInWindow: CGRect
    /// A line of text for the panel, e.g. "full · down · 1,420 pt/s".
    public var caption: String

    public init(
        contentSize: CGSize, viewport: CGRect, displayRange: CGRect, preloadRange: CGRect,
        items: [Item], viewportInWindow: CGRect, caption: String
    ) {
        self.contentSize = contentSize
        self.viewport = viewport
        self.displayRange = displayRange
        self.preloadRange = preloadRange
        self.items = items
        self.viewportInWindow = viewportInWindow
        self.caption = caption
    }

    /// Nothing: no content, no items, zero rects.
    public static let empty = RangeOverlaySnapshot(
        contentSize: .zero, viewport: .zero, displayRange: .zero,
        preloadRange: .zero, items: [], viewportInWindow: .zero,
        caption: "")

    /// A content rect in window points: `content - viewport.origin + viewportInWindow.origin` (a
    /// rect that is not finite, a null one say, counts as zero).
    public func windowRect(ofContentRect rect: CGRect) -> CGRect {
        let from = RangeOverlayLayout.finiteRect(viewport), to = RangeOverlayLayout.finiteRect(viewportInWindow)
        return RangeOverlayLayout.finiteRect(rect).offsetBy(dx: to.minX - from.minX, dy: to.minY - from.minY)
    }
}

/// The geometry and colours of the range debug overlay (Texture's range debug overlay,
/// `ASDisplayNode.shouldShowRangeDebugOverlay`) for one snapshot in a window: pure computation; a
/// backend fills the rects.
///
/// Two parts:
/// - Tints over the collection: an item in the display range is tinted orange, one in the preload
///   range yellow (both at alpha 0.35), where it shows in the collection's viewport in the window.
///   Visible items are left untinted; items on screen are normally visible, but a collection may
///   have cells there in other states for a frame, and those are the ones tinted.
/// - A panel at the window's bottom right (where Texture puts its overlay), 10 pt in, 120 pt wide
///   and 60% of the window's height: a caption line at the top, a legend line at the bottom, and
///   between them a map of the content around the viewport. The map shows, top to bottom, the
///   content's y from `span.lowerBound` to `span.upperBound`: the viewport, display range and
///   preload range reach from the viewport's middle, plus a quarter of the viewport's height,
///   either way, moved to stay inside the content (`0...max(contentHeight, viewportHeight)`), all
///   of it when the content is shorter. Content x maps to the map's item column, 0 to the
///   content's width. On the map: the preload range as a yellow band, the display range as an
///   orange band over it, the items (visible white, display orange, preload yellow, in no range
///   grey; an item without its node as an outline only), and the viewport as a 1.5 pt white
///   outline. Everything is cut to the map.
///
/// Texture's overlay draws each range controller as a horizontal bar of the visible, display and
/// preload ranges' relative sizes; this one draws the collection's actual ranges and cells on a
/// vertical map, for a vertical collection. Its colours are the brief's: Texture's bars are green
/// (visible), yellow (display) and orange (preload).
package struct RangeOverlayLayout: Sendable, Equatable {
    // MARK: Colours

    /// The tint of an on-screen item in the display range: orange at alpha 0.35.
    package static let displayTint = Color(red: 1, green: 0.6, blue: 0, alpha: 0.35)
    /// The tint of an on-screen item in the preload range: yellow at alpha 0.35.
    package static let preloadTint = Color(red: 1, green: 0.9, blue: 0.1, alpha: 0.35)
    /// The panel's background: black at alpha 0.72, as the FPS overlay's.
    package static let panelColor = Color(white: 0, alpha: 0.72)
    /// Items on the map, by state.
    package static let visibleItemColor = Color(white: 0.95, alpha: 0.9)
    package static let displayItemColor = Color(red: 1, green: 0.6, blue: 0, alpha: 0.9)
    package static let preloadItemColor = Color(red: 1, green: 0.9, blue: 0.1, alpha: 0.9)
    package static let noneItemColor = Color(white: 0.5, alpha: 0.5)
    /// The edge between an item's fill and its neighbours' (Texture's bars have a dark border).
    package static let itemBorderColor = Color(white: 0, alpha: 0.55)
    /// The ranges on the map.
    package static let preloadBandColor = Color(red: 1, green: 0.9, blue: 0.1, alpha: 0.3)
    package static let displayBandColor = Color(red: 1, green: 0.6, blue: 0, alpha: 0.45)
    /// The viewport's outline on the map.
    package static let viewportColor = Color(white: 1)
    /// The legend's words, in their colours (opaque, for text).
    package static let legend: [(text: String, color: Color)] = [
        ("visible", Color(white: 0.95)),
        ("display", Color(red: 1, green: 0.6, blue: 0)),
        ("preload", Color(red: 1, green: 0.9, blue: 0.1)),
    ]
    package static let captionColor = Color(white: 0.92)

    // MARK: Sizes

    /// Between the panel and the window's edges.
    package static let windowInset: CGFloat = 10
    package static let panelWidth: CGFloat = 120
    /// The panel's height, as a fraction of the window's.
    package static let panelHeightFraction: CGFloat = 0.6
    package static let panelCornerRadius: CGFloat = 8
    /// Inside the panel, around its lines and map.
    package static let padding: CGFloat = 6
    /// The caption's line and the legend's.
    package static let lineHeight: CGFloat = 13
    /// Between the map and the item column, each side: the bands show there.
    package static let columnInset: CGFloat = 8
    /// The viewport's outline: its width, and how far beyond the item column it reaches.
    package static let viewportLineWidth: CGFloat = 1.5
    package static let viewportOverhang: CGFloat = 4
    /// The item borders' width.
    package static let itemBorderWidth: CGFloat = 1

    // MARK: The layout

    /// One item on the map.
    package struct PanelItem: Sendable, Equatable {
        /// The item's index in the snapshot's `items`.
        package var index: Int
        /// Its rect on the map, cut to the map.
        package var rect: CGRect
        package var state: RangeOverlaySnapshot.ItemState
        /// The fill: the state's colour, nil for an item without its node.
        package var fill: Color?
        /// The outline, `itemBorderWidth` inside `rect`: a dark border, or the state's colour for
        /// an item without its node.
        package var stroke: Color
    }

    /// One tint over an on-screen item.
    package struct Tint: Sendable, Equatable {
        /// The item's index in the snapshot's `items`.
        package var index: Int
        /// The item's whole rect in the window.
        package var frame: CGRect
        /// The part of `frame` to fill: inside the window and the collection's viewport in it.
        package var rect: CGRect
        package var color: Color
    }

    /// The window's size, in points.
    package var windowSize: CGSize
    /// The panel (empty when the window is too small for one).
    package var panel: CGRect
    /// The caption's line, at the panel's top.
    package var captionLine: CGRect
    /// The legend's line, at the panel's bottom.
    package var legendLine: CGRect
    /// The map of the content, between the lines.
    package var map: CGRect
    /// The map's part the items are laid in (the map less `columnInset` each side).
    package var itemColumn: CGRect
    /// The content y the map shows, top to bottom.
    package var span: ClosedRange<CGFloat>
    /// Map points per content point, vertically (0 when there is nothing to show).
    package var scale: CGFloat
    /// Map points per content point, horizontally (0 when there is nothing to show).
    package var horizontalScale: CGFloat
    /// The ranges on the map, cut to it (nil when they miss it or have no height).
    package var preloadBand: CGRect?
    package var displayBand: CGRect?
    /// The viewport on the map, not cut: its y mapped, its x the item column and
    /// `viewportOverhang` either side.
    package var viewport: CGRect
    /// The outline's pieces: its four edges, `viewportLineWidth` wide and centred on `viewport`'s
    /// edges, cut to the map.
    package var viewportOutline: [CGRect]
    /// The items shown on the map, in the snapshot's order.
    package var items: [PanelItem]
    /// The tints over on-screen items in the display or preload range.
    package var tints: [Tint]

    package init(snapshot: RangeOverlaySnapshot, windowSize: CGSize) {
        self.windowSize = windowSize
        panel = Self.panelRect(windowSize: windowSize)
        let p = Self.padding, line = Self.lineHeight
        let inner = panel.insetBy(dx: min(p, panel.width / 2), dy: min(p, panel.height / 2))
        captionLine = CGRect(x: inner.minX, y: inner.minY, width: inner.width, height: min(line, inner.height))
        legendLine = CGRect(
            x: inner.minX, y: max(inner.minY, inner.maxY - line), width: inner.width,
            height: min(line, inner.height))
        let mapTop = captionLine.maxY + p, mapBottom = legendLine.minY - p
        map = CGRect(x: inner.minX, y: mapTop, width: inner.width, height: max(0, mapBottom - mapTop))
        let column = min(Self.columnInset, map.width / 2)
        itemColumn = map.insetBy(dx: column, dy: 0)

        span = Self.span(of: snapshot)
        let spanHeight = span.upperBound - span.lowerBound
        scale = spanHeight > 0 && map.height > 0 ? map.height / spanHeight : 0
        let contentWidth = Self.finite(max(snapshot.contentSize.width, snapshot.viewport.width))
        horizontalScale = contentWidth > 0 && itemColumn.width > 0 ? itemColumn.width / contentWidth : 0

        preloadBand = Self.band(snapshot.preloadRange, span: span, scale: scale, map: map)
        displayBand = Self.band(snapshot.displayRange, span: span, scale: scale, map: map)

        let overhang = min(Self.viewportOverhang, column)
        let vp = Self.finiteRect(snapshot.viewport)
        viewport = CGRect(
            x: itemColumn.minX - overhang, y: Self.mapY(vp.minY, span: span, scale: scale, map: map),
            width: itemColumn.width + 2 * overhang, height: vp.height * scale)
        viewportOutline = scale > 0 ? Self.outline(of: viewport, width: Self.viewportLineWidth, cutTo: map) : []

        var items: [PanelItem] = []
        var tints: [Tint] = []
        let window = CGRect(origin: .zero, size: windowSize)
        let onScreen = Self.finiteRect(snapshot.viewportInWindow).intersection(window)
        for (index, item) in snapshot.items.enumerated() {
            let frame = Self.finiteRect(item.frame)
            if scale > 0 {
                let mapped = CGRect(
                    x: itemColumn.minX + frame.minX * horizontalScale,
                    y: Self.mapY(frame.minY, span: span, scale: scale, map: map),
                    width: frame.width * horizontalScale, height: frame.height * scale)
                let cut = mapped.intersection(itemColumn)
                if !cut.isNull, cut.width > 0, cut.height > 0 {
                    let color = Self.itemColor(item.state)
                    items.append(
                        PanelItem(
                            index: index, rect: cut, state: item.state,
                            fill: item.isAllocated ? color : nil,
                            stroke: item.isAllocated ? Self.itemBorderColor : color))
                }
            }
            let tint: Color
            switch item.state {
            case .display: tint = Self.displayTint
            case .preload: tint = Self.preloadTint
            case .visible, .none: continue
            }
            let inWindow = snapshot.windowRect(ofContentRect: frame)
            let visible = inWindow.intersection(onScreen)
            guard !visible.isNull, visible.width > 0, visible.height > 0 else { continue }
            tints.append(Tint(index: index, frame: inWindow, rect: visible, color: tint))
        }
        self.items = items
        self.tints = tints
    }

    /// The panel: at the window's bottom right, `windowInset` in, `panelWidth` wide and
    /// `panelHeightFraction` of the window's height, within the window less the inset (empty,
    /// at the window's corner, when nothing is left).
    package static func panelRect(windowSize: CGSize) -> CGRect {
        let w = finite(windowSize.width), h = finite(windowSize.height)
        let width = max(0, min(panelWidth, w - 2 * windowInset))
        let height = max(0, min((h * panelHeightFraction).rounded(), h - 2 * windowInset))
        return CGRect(
            x: max(0, w - windowInset - width), y: max(0, h - windowInset - height),
            width: width, height: height)
    }

    /// The content y the map shows (see the type's notes).
    package static func span(of snapshot: RangeOverlaySnapshot) -> ClosedRange<CGFloat> {
        let viewport = finiteRect(snapshot.viewport)
        let extent = max(0, finite(max(snapshot.contentSize.height, viewport.height)))
        let middle = viewport.midY
        var reach: CGFloat = 0
        for range in [viewport, finiteRect(snapshot.displayRange), finiteRect(snapshot.preloadRange)]
        where range.height > 0 {
            reach = max(reach, abs(range.minY - middle), abs(range.maxY - middle))
        }
        let half = reach + viewport.height / 4
        guard half > 0, 2 * half < extent else { return 0...extent }
        let top = min(max(0, middle - half), extent - 2 * half)
        return top...(top + 2 * half)
    }

    /// The colour of an item on the map (its fill, or its outline without a node).
    package static func itemColor(_ state: RangeOverlaySnapshot.ItemState) -> Color {
        switch state {
        case .visible: visibleItemColor
        case .display: displayItemColor
        case .preload: preloadItemColor
        case .none: noneItemColor
        }
    }

    /// The map y of content y.
    package func mapY(_ contentY: CGFloat) -> CGFloat {
        Self.mapY(contentY, span: span, scale: scale, map: map)
    }

    // MARK: Helpers

    static func mapY(_ y: CGFloat, span: ClosedRange<CGFloat>, scale: CGFloat, map: CGRect) -> CGFloat {
        map.minY + (y - span.lowerBound) * scale
    }

    /// A range's band: the map's width, its y mapped, cut to the map.
    static func band(_ range: CGRect, span: ClosedRange<CGFloat>, scale: CGFloat, map: CGRect) -> CGRect? {
        let range = finiteRect(range)
        guard scale > 0, range.height > 0 else { return nil }
        let top = max(map.minY, mapY(range.minY, span: span, scale: scale, map: map))
        let bottom = min(map.maxY, mapY(range.maxY, span: span, scale: scale, map: map))
        guard bottom > top else { return nil }
        return CGRect(x: map.minX, y: top, width: map.width, height: bottom - top)
    }

    /// The four edges of `rect`'s outline `width` wide, centred on its edges (top and bottom
    /// across the corners), each cut to `bounds`; those left empty are left out.
    static func outline(of rect: CGRect, width: CGFloat, cutTo bounds: CGRect) -> [CGRect] {
        let h = width / 2
        let outer = rect.insetBy(dx: -h, dy: -h)
        let edges = [
            CGRect(x: outer.minX, y: outer.minY, width: outer.width, height: width),
            CGRect(x: outer.minX, y: outer.maxY - width, width: outer.width, height: width),
            CGRect(x: outer.minX, y: outer.minY + width, width: width, height: outer.height - 2 * width),
            CGRect(x: outer.maxX - width, y: outer.minY + width, width: width, height: outer.height - 2 * width),
        ]
        return edges.compactMap { edge in
            guard edge.width > 0, edge.height > 0 else { return nil }
            let cut = edge.intersection(bounds)
            return cut.isNull || cut.width <= 0 || cut.height <= 0 ? nil : cut
        }
    }

    static func finite(_ value: CGFloat) -> CGFloat { value.isFinite ? value : 0 }

    /// The rect standardised, or zero when any of it is not finite (a null rect, say).
    static func finiteRect(_ rect: CGRect) -> CGRect {
        guard rect.origin.x.isFinite, rect.origin.y.isFinite, rect.width.isFinite, rect.height.isFinite else {
            return .zero
        }
        return rect.standardized
    }
}
