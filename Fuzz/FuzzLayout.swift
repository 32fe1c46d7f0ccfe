// libFuzzer target: the layout engine (Canopy's layout specs and StackLayoutSpec). Fuzz/run
// builds the Canopy module with coverage (swift build --sanitize=fuzzer) and links this file
// against it.
//
// The input's bytes build a tree of specs (stack, inset, overlay, background, centre, ratio,
// relative, absolute, wrapper, corner, and the bare spec) over leaves, every element with a
// style from the bytes, and a size range to lay the tree out in. Lengths are what a caller may
// give: finite and not negative, except where negative or infinite values have a documented
// meaning (infinite insets, negative corner offsets, flex factors and ratios that count as 0,
// leaves whose preferred size is not finite). The checks are the engine's promises:
// - nothing traps;
// - every range a parent gives a child is a range (a minimum finite and not negative, a
//   maximum not below it), and the child's size lies within it, finite and not negative;
// - the root's size lies within the root's range, and every size and position is finite;
// - laying the tree out again, also after another range, gives the same layout (the caches).
import Canopy
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func layoutFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeBufferPointer(start: data, count: size))
    let log = ProbeLog()
    var budget = 60  // elements at most, so that one input stays fast
    let range = input.sizeRange()
    let tree = FuzzTree.element(depth: 0, input: &input, budget: &budget, log: log)

    let layout = tree.layoutThatFits(range)
    let label = "range \(range)\n\(layout.description)"
    require(log.problems.isEmpty, "a child's range or size: \(log.problems.joined(separator: "; "))\n\(label)")
    require(
        problems(range: range, size: layout.size).isEmpty,
        "the root: \(problems(range: range, size: layout.size))\n\(label)")
    checkFinite(layout, label: label)

    // Cached: the same layout again, and after a layout in another range.
    require(tree.layoutThatFits(range).description == layout.description, "laid out again differently\n\(label)")
    _ = tree.layoutThatFits(SizeRange(min: .zero, max: range.min))
    require(
        tree.layoutThatFits(range).description == layout.description,
        "laid out differently after another range\n\(label)")
    require(log.problems.isEmpty, "a child's range or size, other range: \(log.problems.joined(separator: "; "))")
    return 0
}

private func checkFinite(_ layout: Layout, label: String) {
    for value in [layout.size.width, layout.size.height, layout.position.x, layout.position.y] {
        require(value.isFinite, "NaN or infinity in \(layout.frame)\n\(label)")
    }
    require(layout.size.width >= 0 && layout.size.height >= 0, "a negative size \(layout.size)\n\(label)")
    for sublayout in layout.sublayouts { checkFinite(sublayout, label: label) }
}

/// What is wrong with a layout of `size` given `range`: a range that is not one (a minimum that is
/// NaN, negative or infinite, a maximum that is NaN or below the minimum) or a size outside it.
func problems(range: SizeRange, size: CGSize) -> [String] {
    var found: [String] = []
    let axes = [
        ("width", range.min.width, range.max.width, size.width),
        ("height", range.min.height, range.max.height, size.height),
    ]
    for (axis, lower, upper, length) in axes {
        if !(lower.isFinite && lower >= 0) { found.append("min \(axis) \(lower)") }
        if !(upper >= lower) { found.append("max \(axis) \(upper) below min \(lower)") }
        if !(length.isFinite && length >= 0 && length >= lower && length <= upper) {
            found.append("\(axis) \(length) outside \(lower)…\(upper)")
        }
    }
    return found
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

// MARK: The input

/// Reads decisions and values from the fuzzer's bytes; past the end every byte reads as 0 (so a
/// short input makes a small tree).
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func below(_ count: Int) -> Int { Int(byte()) % count }
    mutating func bool() -> Bool { byte() & 1 == 1 }
    mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }

    private static let special: [CGFloat] = [
        0.25, 0.5, 0.1, 1e-4, 1.0 / 3, 320, 480, 1000, 4096, 1e5, 1e7, 1e9,
        199.5, 2.5, 65_535, 16_384,
    ]

    /// A length: mostly whole points 0…199, sometimes a fraction or a large value.
    mutating func length() -> CGFloat {
        let b = byte()
        return b < 240 ? CGFloat(b % 200) : Self.special[Int(b - 240)]
    }

    /// A signed length, for offsets and positions.
    mutating func offset() -> CGFloat { bool() ? -length() : length() }

    /// A fraction of the parent: 0…2 in steps of 1/8, mostly 0…1.
    mutating func fraction() -> CGFloat { CGFloat(below(17)) / 8 }

    mutating func dimension() -> LayoutDimension {
        switch below(4) {
        case 0: return .points(length())
        case 1: return .fraction(fraction())
        default: return .auto
        }
    }

    /// A flex factor: usually 0 to 3; now and then one that counts as 0 (negative, NaN, infinite).
    mutating func factor() -> CGFloat {
        pick([0, 0, 0.25, 0.5, 1, 1, 2, 3, 1e-9, 1e9, -1, .nan, .infinity])
    }

    mutating func sizeRange() -> SizeRange {
        let minimum = CGSize(width: length(), height: length())
        func upper(_ lower: CGFloat, _ choice: Int) -> CGFloat {
            switch choice {
            case 0: return .infinity
            case 1: return lower
            default: return lower + length()
            }
        }
        return SizeRange(
            min: minimum,
            max: CGSize(
                width: upper(minimum.width, below(4)),
                height: upper(minimum.height, below(4))))
    }
}

// MARK: The tree

/// A leaf with a preferred size (which may be NaN or infinite: it then counts as 0), or one that
/// takes the largest size it is given.
final class FuzzLeaf: LayoutElement {
    let style: Style
    let layoutCache = LayoutCache()
    let preferred: CGSize?

    init(style: Style, preferred: CGSize?) {
        self.style = style
        self.preferred = preferred
    }

    func calculateSizeThatFits(_ constrainedSize: CGSize) -> CGSize {
        preferred ?? constrainedSize
    }
}

/// Stands in for an element in its parent and checks the range each measurement is given and
/// the size it returns; invisible in the layout (its style and its layout are the element's).
final class Probe: LayoutElement {
    let child: any LayoutElement
    let log: ProbeLog
    let layoutCache = LayoutCache()
    var style: Style { child.style }

    init(_ child: any LayoutElement, log: ProbeLog) {
        self.child = child
        self.log = log
    }

    func layoutThatFits(_ constrainedSize: SizeRange, parentSize: CGSize) -> Layout {
        let layout = child.layoutThatFits(constrainedSize, parentSize: parentSize)
        let found = problems(range: constrainedSize, size: layout.size)
        if !found.isEmpty {
            log.problems.append("\(type(of: child)) in \(constrainedSize): \(found.joined(separator: ", "))")
        }
        return layout
    }

    func calculateLayoutThatFits(_ constrainedSize: SizeRange) -> Layout {
        child.calculateLayoutThatFits(constrainedSize)
    }
}

/// What the probes found; the fuzzer runs one input at a time, on one thread.
final class ProbeLog: @unchecked Sendable {
    var problems: [String] = []
}

enum FuzzTree {
    static func style(_ input: inout FuzzInput) -> Style {
        let style = Style()
        if input.bool() {
            style.width = input.dimension()
            style.height = input.dimension()
            style.minWidth = input.dimension()
            style.maxWidth = input.dimension()
            style.minHeight = input.dimension()
            style.maxHeight = input.dimension()
        }
        if input.bool() { style.layoutPosition = CGPoint(x: input.offset(), y: input.offset()) }
        return style
    }

    /// An element `depth` down, its children in probes; `budget` counts the elements left.
    static func element(depth: Int, input: inout FuzzInput, budget: inout Int, log: ProbeLog) -> any LayoutElement {
        budget -= 1
        let kind = depth >= 6 || budget <= 0 ? input.below(2) : input.below(14)
        let style = style(&input)
        func child() -> any LayoutElement {
            Probe(element(depth: depth + 1, input: &input, budget: &budget, log: log), log: log)
        }
        func children(_ most: Int) -> [any LayoutElement] {
            (0..<input.below(most + 1)).map { _ in child() }
        }
        switch kind {
        case 0:
            switch input.below(4) {
            case 0: return FuzzLeaf(style: style, preferred: nil)
            case 1:
                return FuzzLeaf(
                    style: style,
                    preferred: CGSize(
                        width: input.pick([.nan, .infinity, 10] as [CGFloat]),
                        height: input.pick([.infinity, .nan, 20] as [CGFloat])))
            default: return FuzzLeaf(style: style, preferred: CGSize(width: input.length(), height: input.length()))
            }
        case 1:
            return LayoutSpec(style: style)
        case 2:
            return WrapperLayoutSpec(style: style, children: children(3))
        case 3:
            func inset() -> CGFloat { input.below(8) == 0 ? .infinity : input.length() }
            let insets = EdgeInsets(top: inset(), left: inset(), bottom: inset(), right: inset())
            return InsetLayoutSpec(style: style, insets: insets, child: child())
        case 4:
            return OverlayLayoutSpec(style: style, child: child(), overlay: child())
        case 5:
            return BackgroundLayoutSpec(style: style, child: child(), background: child())
        case 6:
            return CenterLayoutSpec(
                style: style,
                centeringOptions: .init(rawValue: input.below(4)),
                sizingOptions: .init(rawValue: input.below(4)), child: child())
        case 7:
            let ratio = input.pick([0.25, 0.5, 1, 1.5, 3, 0, -1, .nan, .infinity, 1e-6, 1e6] as [CGFloat])
            return RatioLayoutSpec(style: style, ratio: ratio, child: child())
        case 8:
            let positions: [RelativeLayoutSpec.Position] = [.none, .start, .center, .end]
            return RelativeLayoutSpec(
                style: style, horizontalPosition: input.pick(positions),
                verticalPosition: input.pick(positions),
                sizingOptions: .init(rawValue: input.below(4)), child: child())
        case 9:
            return AbsoluteLayoutSpec(
                style: style, sizing: input.bool() ? .default : .sizeToFit,
                children: children(3))
        case 10:
            let locations: [CornerLayoutSpec.Location] = [.topLeft, .topRight, .bottomLeft, .bottomRight]
            return CornerLayoutSpec(
                style: style, child: child(), corner: child(),
                location: input.pick(locations),
                offset: CGPoint(x: input.offset(), y: input.offset()),
                wrapsCorner: input.bool())
        default:
            return stack(style: style, children: children(4), input: &input)
        }
    }

    static func stack(style: Style, children: [any LayoutElement], input: inout FuzzInput) -> StackLayoutSpec {
        let stack = StackLayoutSpec(style: style, children: children)
        stack.direction = input.bool() ? .horizontal : .vertical
        stack.spacing = input.bool() ? 0 : input.length()
        stack.justifyContent = input.pick([.start, .center, .end, .spaceBetween, .spaceAround, .spaceEvenly])
        stack.alignItems = input.pick([.start, .end, .center, .stretch, .baselineFirst, .baselineLast])
        stack.flexWrap = input.bool() ? .noWrap : .wrap
        stack.alignContent = input.pick([.start, .center, .end, .spaceBetween, .spaceAround, .stretch])
        stack.lineSpacing = input.bool() ? 0 : input.length()
        for child in children {
            let style = child.style
            style.flexGrow = input.factor()
            style.flexShrink = input.factor()
            style.flexBasis = input.dimension()
            style.alignSelf = input.pick([.auto, .auto, .start, .end, .center, .stretch, .baselineFirst, .baselineLast])
            style.spacingBefore = input.bool() ? 0 : input.length()
            style.spacingAfter = input.bool() ? 0 : input.length()
            style.ascender = input.offset()
            style.descender = -input.length()
        }
        return stack
    }
}
