import Foundation

/// One pass of `StackLayoutSpec`'s layout: CSS Flexible Box Layout §9 for one size range.
///
/// Lengths are named by axis: "main" along the stack's direction, "cross" across it. The steps
/// follow the CSS algorithm: measure each child's flex base size and hypothetical main size (§9.2),
/// collect lines (§9.3), resolve flexible lengths per line with freezing (§9.7), measure the cross
/// sizes and lines (§9.4), then justify (§9.5) and align (§9.6). The stack's own size on each axis
/// is its content's clamped into the range, so "definite" means "the range's minimum" for growing
/// and "the range's maximum" for shrinking and wrapping.
struct StackLayoutAlgorithm {
    private struct Item {
        let element: any LayoutElement
        let values: Style.Values
        let align: AlignSelf
        /// The child's own min/max main length (its style's, the min winning).
        let minMain: CGFloat
        let maxMain: CGFloat
        let minCross: CGFloat
        let maxCross: CGFloat
        /// Whether the child's cross length is set by its style (then it is never stretched).
        let hasCrossSize: Bool
        /// The least cross length the child is measured with.
        let crossMinimum: CGFloat
        /// The flex base size and the hypothetical main size (the base clamped by min/max).
        let base: CGFloat
        let hypothetical: CGFloat
        /// The measurement of the content (auto basis), reused when the flexed length equals it.
        var measured: Layout?
        /// The main length after flexing.
        var target: CGFloat = 0
        var frozen = false
        var layout: Layout?
        var crossOffset: CGFloat = 0
        var mainOffset: CGFloat = 0

        var spacingAround: CGFloat { values.spacingBefore + values.spacingAfter }
    }

    private struct Line {
        var items: Range<Int>
        var cross: CGFloat = 0
        var offset: CGFloat = 0
        /// The shared first baseline from the line's top and the shared last baseline, for the
        /// items aligned on them.
        var firstBaseline: CGFloat?
        var lastBaseline: CGFloat?
    }

    private let spec: StackLayoutSpec
    private let configuration: StackLayoutSpec.Configuration
    private let range: SizeRange
    private let horizontal: Bool
    private let parentSize: CGSize

    init(spec: StackLayoutSpec, configuration: StackLayoutSpec.Configuration, range: SizeRange) {
        self.spec = spec
        self.configuration = configuration
        self.range = range
        horizontal = configuration.direction == .horizontal
        parentSize = definedParentSize(range)
    }

    // MARK: Axes

    private func main(_ size: CGSize) -> CGFloat { horizontal ? size.width : size.height }
    private func cross(_ size: CGSize) -> CGFloat { horizontal ? size.height : size.width }
    private func size(main: CGFloat, cross: CGFloat) -> CGSize {
        horizontal ? CGSize(width: main, height: cross) : CGSize(width: cross, height: main)
    }
    private func point(main: CGFloat, cross: CGFloat) -> CGPoint {
        horizontal ? CGPoint(x: main, y: cross) : CGPoint(x: cross, y: main)
    }
    private func childRange(main: ClosedRange<CGFloat>, cross: ClosedRange<CGFloat>) -> SizeRange {
        SizeRange(
            min: size(main: main.lowerBound, cross: cross.lowerBound),
            max: size(main: main.upperBound, cross: cross.upperBound))
    }

    private var minMain: CGFloat { main(range.min) }
    private var maxMain: CGFloat { main(range.max) }
    private var minCross: CGFloat { cross(range.min) }
    private var maxCross: CGFloat { cross(range.max) }

    // MARK: The pass

    func layout() -> Layout {
        let children = configuration.children
        if children.isEmpty {
            return Layout(element: spec, size: range.min)
        }
        var items = children.map(makeItem)
        let wraps = configuration.flexWrap == .wrap
        var lines = wraps ? collectLines(items) : [Line(items: 0..<items.count)]

        // Flexing: each line's target is its content clamped into the range's main axis.
        var mainLength: CGFloat = 0
        for line in lines {
            let used = resolveFlexibleLengths(&items, line.items)
            mainLength = max(mainLength, used)
        }
        mainLength = clampMain(mainLength)

        // Cross sizes: each child measured at its flexed main length.
        for index in items.indices {
            items[index].layout = measureAtTarget(items[index])
        }
        for index in lines.indices {
            measureLineCross(&lines[index], items)
        }
        let crossLength = resolveLineCrossSizes(&lines, wraps: wraps)

        // Stretch, then place.
        for line in lines {
            for index in line.items {
                stretchIfNeeded(&items[index], lineCross: line.cross)
                items[index].crossOffset = line.offset + crossOffset(of: items[index], in: line)
            }
            justify(&items, line.items, mainLength: mainLength)
        }

        let sublayouts = items.map { item in
            item.layout!.positioned(at: point(main: item.mainOffset, cross: item.crossOffset))
        }
        let stackSize = size(main: mainLength, cross: crossLength)
        let baselines = self.baselines(items: items, lines: lines, sublayouts: sublayouts, stackSize: stackSize)
        return Layout(
            element: spec, size: stackSize, sublayouts: sublayouts,
            ascender: baselines.ascender, descender: baselines.descender)
    }

    private func clampMain(_ length: CGFloat) -> CGFloat {
        max(minMain, min(maxMain, length))
    }

    // MARK: §9.2 Flex base size and hypothetical main size

    private func makeItem(_ element: any LayoutElement) -> Item {
        let values = element.style.valuesForLayout()
        var align = values.alignSelf == .auto ? configuration.alignItems.alignSelf : values.alignSelf
        // Baselines line up across a row only; in a column they fall back to start (CSS).
        if !horizontal && (align == .baselineFirst || align == .baselineLast) { align = .start }

        let parentMain = main(parentSize)
        let parentCross = cross(parentSize)
        let mainBounds = Self.bounds(
            min: horizontal ? values.minWidth : values.minHeight,
            max: horizontal ? values.maxWidth : values.maxHeight, parent: parentMain)
        let crossBounds = Self.bounds(
            min: horizontal ? values.minHeight : values.minWidth,
            max: horizontal ? values.maxHeight : values.maxWidth, parent: parentCross)
        let crossDimension = horizontal ? values.height : values.width
        let hasCrossSize = !crossDimension.resolve(parent: parentCross, auto: .nan).isNaN

        // A stretched child of a single-line stack will be at least the stack's minimum across (the
        // line is), so it is measured so: a wrapping row inside a column then wraps at its final width.
        let crossMinimum =
            configuration.flexWrap == .noWrap && align == .stretch && !hasCrossSize
            ? min(max(minCross, crossBounds.lowerBound), crossBounds.upperBound, maxCross) : 0

        // The flex base size ignores the child's own min/max (CSS §9.2.3); only the hypothetical
        // size is clamped.
        let basis = values.flexBasis.resolve(parent: parentMain, auto: .nan)
        let mainSize = (horizontal ? values.width : values.height).resolve(parent: parentMain, auto: .nan)
        var base: CGFloat
        var measured: Layout?
        if !basis.isNaN {
            base = max(0, basis)
        } else if !mainSize.isNaN {
            base = max(0, mainSize)
        } else {
            // Auto basis and no length: the child's content, with nothing limiting the main axis.
            let range = childRange(main: 0...CGFloat.infinity, cross: crossMinimum...maxCross)
            let layout: Layout
            if mainBounds == 0...CGFloat.infinity {
                layout = element.layoutThatFits(range, parentSize: parentSize)
                measured = layout
            } else {
                layout = element.contentLayout(
                    range, parentSize: parentSize, ignoringMainBoundsOf: values,
                    horizontal: horizontal)
            }
            base = main(layout.size)
        }
        if !base.isFinite { base = 0 }
        let hypothetical = max(mainBounds.lowerBound, min(mainBounds.upperBound, base))
        return Item(
            element: element, values: values, align: align, minMain: mainBounds.lowerBound,
            maxMain: mainBounds.upperBound, minCross: crossBounds.lowerBound,
            maxCross: crossBounds.upperBound, hasCrossSize: hasCrossSize, crossMinimum: crossMinimum, base: base,
            hypothetical: hypothetical, measured: measured)
    }

    /// A child's [min, max] on one axis from its style; auto is [0, ∞), and min wins over max.
    private static func bounds(min: LayoutDimension, max: LayoutDimension, parent: CGFloat) -> ClosedRange<CGFloat> {
        let lower = Swift.max(0, min.resolve(parent: parent, auto: 0))
        let upper = max.resolve(parent: parent, auto: .infinity)
        return lower...Swift.max(lower, upper)
    }

    // MARK: §9.3 Lines

    private func collectLines(_ items: [Item]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var used: CGFloat = 0
        for (index, item) in items.enumerated() {
            let outer = item.hypothetical + item.spacingAround
            let next = index == start ? outer : used + configuration.spacing + outer
            if index > start && next > maxMain {
                lines.append(Line(items: start..<index))
                start = index
                used = outer
            } else {
                used = next
            }
        }
        lines.append(Line(items: start..<items.count))
        return lines
    }

    // MARK: §9.7 Resolving flexible lengths

    /// Flexes one line's items and returns the main length they use with their spacing.
    private func resolveFlexibleLengths(_ items: inout [Item], _ indices: Range<Int>) -> CGFloat {
        let spacing =
            configuration.spacing * CGFloat(indices.count - 1)
            + indices.reduce(0) { $0 + items[$1].spacingAround }
        let hypotheticalSum = indices.reduce(spacing) { $0 + items[$1].hypothetical }
        let target = clampMain(hypotheticalSum)
        let growing = hypotheticalSum < target
        // An infinite minimum gives nothing to grow into that lengths could hold: no flexing.
        let flexes = target.isFinite && hypotheticalSum.isFinite

        /// A child's factor in this direction; negative, NaN and infinite factors count as 0.
        func factor(_ item: Item) -> CGFloat {
            let value = growing ? item.values.flexGrow : item.values.flexShrink
            return value.isFinite ? max(0, value) : 0
        }

        // Items that cannot flex in this direction keep their hypothetical size.
        for index in indices {
            let item = items[index]
            items[index].target = item.hypothetical
            items[index].frozen =
                !flexes || hypotheticalSum == target || factor(item) == 0
                || (growing && item.base > item.hypothetical) || (!growing && item.base < item.hypothetical)
        }

        func freeSpace() -> CGFloat {
            indices.reduce(target - spacing) { free, index in
                free - (items[index].frozen ? items[index].target : items[index].base)
            }
        }
        let initialFreeSpace = freeSpace()

        while indices.contains(where: { !items[$0].frozen }) {
            var free = freeSpace()
            let unfrozen = indices.filter { !items[$0].frozen }
            let factorSum = unfrozen.reduce(0) { $0 + factor(items[$1]) }
            // Grow or shrink factors summing below 1 take only that share of the free space.
            if factorSum < 1 {
                let share = initialFreeSpace * factorSum
                if abs(share) < abs(free) { free = share }
            }
            if growing {
                for index in unfrozen {
                    items[index].target = items[index].base + free * factor(items[index]) / factorSum
                }
            } else {
                // Shrinking is weighted by the base size, so big items give up more.
                let scaledSum = unfrozen.reduce(0) { $0 + factor(items[$1]) * items[$1].base }
                for index in unfrozen {
                    let scaled = factor(items[index]) * items[index].base
                    items[index].target = items[index].base + (scaledSum > 0 ? free * scaled / scaledSum : 0)
                }
            }

            // Clamp to min/max (never below zero) and freeze the violators of the larger kind.
            func clamped(_ item: Item) -> CGFloat { max(item.minMain, min(item.maxMain, max(0, item.target))) }
            let totalViolation = unfrozen.reduce(0) { $0 + clamped(items[$1]) - items[$1].target }
            for index in unfrozen {
                let value = clamped(items[index])
                let violation = value - items[index].target
                // Each round freezes at least one item (all of them if anything came out NaN), so
                // the loop ends after at most one round per item.
                if totalViolation == 0 || totalViolation.isNaN || (totalViolation > 0 && violation > 0)
                    || (totalViolation < 0 && violation < 0)
                {
                    items[index].frozen = true
                }
                items[index].target = value
            }
        }
        return indices.reduce(spacing) { $0 + items[$1].target }
    }

    // MARK: §9.4 Cross sizes

    private func measureAtTarget(_ item: Item) -> Layout {
        if let measured = item.measured, main(measured.size) == item.target { return measured }
        return item.element.layoutThatFits(
            childRange(main: item.target...item.target, cross: item.crossMinimum...maxCross), parentSize: parentSize)
    }

    private func ascender(_ item: Item) -> CGFloat {
        item.layout?.ascender ?? item.values.ascender
    }

    /// How far below its last baseline an item extends: minus its descender (Texture's sign: a
    /// font's descender is negative, and the last baseline sits at height + descender).
    private func depth(_ item: Item) -> CGFloat {
        -(item.layout?.descender ?? item.values.descender)
    }

    /// A line's cross length: its tallest item, or its baseline-aligned items' extent.
    private func measureLineCross(_ line: inout Line, _ items: [Item]) {
        var length: CGFloat = 0
        var maxAscent: CGFloat?, maxBelowFirst: CGFloat = 0
        var maxToLast: CGFloat?, maxDescent: CGFloat = 0
        for index in line.items {
            let item = items[index]
            let itemCross = cross(item.layout!.size)
            switch item.align {
            case .baselineFirst:
                let ascent = ascender(item)
                maxAscent = max(maxAscent ?? ascent, ascent)
                maxBelowFirst = max(maxBelowFirst, itemCross - ascent)
            case .baselineLast:
                let toLast = itemCross - depth(item)
                maxToLast = max(maxToLast ?? toLast, toLast)
                maxDescent = max(maxDescent, depth(item))
            default:
                length = max(length, itemCross)
            }
        }
        if let maxAscent { length = max(length, maxAscent + maxBelowFirst) }
        if let maxToLast { length = max(length, maxToLast + maxDescent) }
        line.cross = length
        line.firstBaseline = maxAscent
        line.lastBaseline = maxToLast
    }

    /// Sizes and places the lines across the stack (§9.4 steps 8 and 15, `alignContent`); returns
    /// the stack's cross length.
    private func resolveLineCrossSizes(_ lines: inout [Line], wraps: Bool) -> CGFloat {
        let clampCross = { (length: CGFloat) in max(self.minCross, min(self.maxCross, length)) }
        if !wraps {
            // A single-line stack's line is as long as the stack across.
            lines[0].cross = clampCross(lines[0].cross)
            lines[0].offset = 0
            return lines[0].cross
        }
        let gaps = configuration.lineSpacing * CGFloat(lines.count - 1)
        let content = lines.reduce(gaps) { $0 + $1.cross }
        let length = clampCross(content)
        let free = length - content
        let distribution: StackLayoutSpec.JustifyContent
        switch configuration.alignContent {
        case .start: distribution = .start
        case .center: distribution = .center
        case .end: distribution = .end
        case .spaceBetween: distribution = .spaceBetween
        case .spaceAround: distribution = .spaceAround
        case .stretch:
            // The lines take the free space, then sit packed at the start.
            distribution = .start
            if free > 0 {
                for index in lines.indices { lines[index].cross += free / CGFloat(lines.count) }
            }
        }
        var (offset, gap) = Self.distribute(free, among: lines.count, distribution)
        for index in lines.indices {
            lines[index].offset = offset
            offset += lines[index].cross + configuration.lineSpacing + gap
        }
        return length
    }

    private func stretchIfNeeded(_ item: inout Item, lineCross: CGFloat) {
        guard item.align == .stretch, !item.hasCrossSize else { return }
        let stretched = max(item.minCross, min(item.maxCross, lineCross))
        guard stretched != cross(item.layout!.size) else { return }
        item.layout = item.element.layoutThatFits(
            childRange(main: item.target...item.target, cross: stretched...stretched), parentSize: parentSize)
    }

    // MARK: §9.6 Cross-axis alignment

    private func crossOffset(of item: Item, in line: Line) -> CGFloat {
        let itemCross = cross(item.layout!.size)
        switch item.align {
        case .auto, .start, .stretch:
            return 0
        case .end:
            return line.cross - itemCross
        case .center:
            return (line.cross - itemCross) / 2
        case .baselineFirst:
            return (line.firstBaseline ?? 0) - ascender(item)
        case .baselineLast:
            return (line.lastBaseline ?? 0) - (itemCross - depth(item))
        }
    }

    // MARK: §9.5 Main-axis alignment

    private func justify(_ items: inout [Item], _ indices: Range<Int>, mainLength: CGFloat) {
        let spacing = configuration.spacing
        let used = indices.reduce(spacing * CGFloat(indices.count - 1)) {
            $0 + items[$1].target + items[$1].spacingAround
        }
        var (offset, gap) = Self.distribute(mainLength - used, among: indices.count, configuration.justifyContent)
        for index in indices {
            offset += items[index].values.spacingBefore
            items[index].mainOffset = offset
            offset += items[index].target + items[index].values.spacingAfter + spacing + gap
        }
    }

    // MARK: Free space

    /// Where the first of `count` things goes and the extra gap between them, for `free` space left
    /// over (negative on overflow, where the spacing kinds fall back as CSS says: between to start,
    /// around and evenly to centre). Children along a line (`justifyContent`) and lines across the
    /// stack (`alignContent`, whose other choices are the same) share it.
    private static func distribute(_ free: CGFloat, among count: Int, _ distribution: StackLayoutSpec.JustifyContent)
        -> (offset: CGFloat, gap: CGFloat)
    {
        let n = CGFloat(count)
        switch distribution {
        case .start:
            return (0, 0)
        case .end:
            return (free, 0)
        case .center:
            return (free / 2, 0)
        case .spaceBetween:
            return (0, free > 0 && count > 1 ? free / (n - 1) : 0)
        case .spaceAround:
            return free > 0 ? (free / n / 2, free / n) : (free / 2, 0)
        case .spaceEvenly:
            return free > 0 ? (free / (n + 1), free / (n + 1)) : (free / 2, 0)
        }
    }

    // MARK: Baselines of the stack itself

    /// The stack's first and last baselines: in a column, its first and last child's; in a row, the
    /// first line's shared first baseline or its first item's, and the last line's shared last
    /// baseline or its last item's.
    private func baselines(
        items: [Item], lines: [Line], sublayouts: [Layout],
        stackSize: CGSize
    ) -> (ascender: CGFloat, descender: CGFloat) {
        let height = stackSize.height
        let first = items.startIndex
        let last = items.endIndex - 1
        func ascent(_ index: Int) -> CGFloat { sublayouts[index].position.y + ascender(items[index]) }
        func descent(_ index: Int) -> CGFloat {
            height - sublayouts[index].frame.maxY + depth(items[index])
        }
        // The descender is reported with Texture's sign: minus the depth below the last baseline.
        if !horizontal {
            return (ascent(first), -descent(last))
        }
        let firstLine = lines[0]
        let lastLine = lines[lines.count - 1]
        let top = firstLine.firstBaseline.map { firstLine.offset + $0 } ?? ascent(firstLine.items.lowerBound)
        let bottom =
            lastLine.lastBaseline.map { height - (lastLine.offset + $0) }
            ?? descent(lastLine.items.upperBound - 1)
        return (top, -bottom)
    }
}
