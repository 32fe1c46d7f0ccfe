import Foundation

/// The computed size and position of one element and of its children, immutable.
///
/// `position` is relative to the parent layout's origin. A layout returned by
/// `layoutThatFits` has position zero; the parent places a copy of it (`positioned(at:)`).
///
/// Ownership, as Texture's `ASLayout`: a layout holds a node (`DisplayNode`) weakly, since nodes
/// keep their own layouts (`calculatedLayout`) and are owned by their tree or their creator; it
/// holds any other element (a spec, a leaf) strongly, since the layout is often all that keeps
/// it. A layout keeps the nodes of its sublayouts alive, so a node laid out but not yet added to
/// its supernode (automatic subnode management) survives until its layout is applied.
public final class Layout: Sendable, CustomStringConvertible {
    /// The element this layout measures. Reading it after its node was released is a bug (a
    /// layout outlived the node it describes) and stops the program.
    public var element: any LayoutElement {
        if let ownedElement { return ownedElement }
        guard let node else { preconditionFailure("Layout: its node was released before its layout was read") }
        return node
    }
    private let ownedElement: (any LayoutElement)?
    private weak let node: DisplayNode?
    /// The nodes of the sublayouts, held strongly (their layouts hold them weakly).
    let sublayoutNodes: [DisplayNode]
    public let size: CGSize
    public let position: CGPoint
    public let sublayouts: [Layout]
    /// The distance from the top to the first baseline when the layout computed it (a stack does,
    /// from its children); nil means the element's `style.ascender`.
    public let ascender: CGFloat?
    /// The last baseline's place from the bottom, negative as a font's descender (the baseline is at
    /// height + descender), when computed; nil means `style.descender`.
    public let descender: CGFloat?

    public init(
        element: any LayoutElement, size: CGSize, position: CGPoint = .zero, sublayouts: [Layout] = [],
        ascender: CGFloat? = nil, descender: CGFloat? = nil
    ) {
        if let node = element as? DisplayNode {
            self.node = node
            ownedElement = nil
        } else {
            node = nil
            ownedElement = element
        }
        sublayoutNodes = sublayouts.compactMap { $0.node }
        self.size = size
        self.position = position
        self.sublayouts = sublayouts
        self.ascender = ascender
        self.descender = descender
    }

    /// The frame in the parent's coordinates.
    public var frame: CGRect { CGRect(origin: position, size: size) }

    /// This layout placed at `point` (itself when already there).
    public func positioned(at point: CGPoint) -> Layout {
        if point == position { return self }
        return Layout(
            element: element, size: size, position: point, sublayouts: sublayouts,
            ascender: ascender, descender: descender)
    }

    /// The tree, one element a line, children indented by two spaces:
    /// `InsetLayoutSpec (0, 0, 100×50)`.
    public var description: String {
        var lines: [String] = []
        appendDescription(to: &lines, depth: 0)
        return lines.joined(separator: "\n")
    }

    private func appendDescription(to lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth)
        lines.append(
            "\(indent)\(type(of: element)) (\(layoutFormat(position.x)), \(layoutFormat(position.y)), "
                + "\(layoutFormat(size.width))×\(layoutFormat(size.height)))")
        for sublayout in sublayouts {
            sublayout.appendDescription(to: &lines, depth: depth + 1)
        }
    }
}
