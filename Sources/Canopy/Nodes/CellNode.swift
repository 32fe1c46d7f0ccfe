import Foundation
import Synchronization

/// A node that is one item of a collection (Texture's `ASCellNode`).
///
/// - It is a transaction container from the start (`isTransactionContainer` is true): the displays
///   of everything in it join one transaction and land in one frame, so a cell never appears piece
///   by piece. Set it to false to let its subnodes appear as each finishes.
/// - It clips to its bounds from the start, as Texture's cells do (UITableViewCell's default).
/// - `isSelected` and `isHighlighted` are set by the collection (or the app), on any thread, under
///   the cell's own lock; `selectedStateDidChange(_:)` and `highlightedStateDidChange(_:)` report
///   changes on the main thread.
/// - `neverShowPlaceholders` is stored here (thread-safe) and answers `suppressesPlaceholders`;
///   the placeholder machinery (DisplayNode+Placeholder) does the rest.
open class CellNode: DisplayNode, @unchecked Sendable {
    private struct Storage {
        var isSelected = false
        var isHighlighted = false
        var neverShowPlaceholders = false
        /// The values the override points last reported (main thread reads and writes them).
        var reportedSelected = false
        var reportedHighlighted = false
    }

    private let storage = Mutex(Storage())
    private let stateReport = CoalescedMainThreadWork()

    public override init() {
        super.init()
        state.withLock { s in
            s.isTransactionContainer = true
            s.clipsToBounds = true
        }
    }

    // MARK: Selection and highlight (any thread)

    public var isSelected: Bool {
        get { storage.withLock { $0.isSelected } }
        set { set(\.isSelected, newValue) }
    }

    public var isHighlighted: Bool {
        get { storage.withLock { $0.isHighlighted } }
        set { set(\.isHighlighted, newValue) }
    }

    /// Called on the main thread after `isSelected` changed, with the new value. A change made on the
    /// main thread is reported at once; one made elsewhere at the main loop's next turn (a change
    /// undone before then is not reported). Subclasses restyle here. Call super.
    @MainActor
    open func selectedStateDidChange(_ isSelected: Bool) {}

    /// Called on the main thread after `isHighlighted` changed, with the new value; reported as
    /// `selectedStateDidChange(_:)` is. Call super.
    @MainActor
    open func highlightedStateDidChange(_ isHighlighted: Bool) {}

    // MARK: Placeholders

    /// When true, the cell is never shown with placeholders: its display is waited for instead
    /// (Texture's `neverShowPlaceholders`, which blocks the main thread until then). Default false.
    /// Stored here, thread-safe; the placeholder machinery reads it through
    /// `suppressesPlaceholders`.
    public var neverShowPlaceholders: Bool {
        get { storage.withLock { $0.neverShowPlaceholders } }
        set { storage.withLock { $0.neverShowPlaceholders = newValue } }
    }

    /// A cell that never shows placeholders suppresses them in its whole subtree (the placeholder
    /// machinery, DisplayNode+Placeholder, asks this).
    open override var suppressesPlaceholders: Bool { neverShowPlaceholders }

    // MARK: Reporting

    private func set(_ flag: WritableKeyPath<Storage, Bool>, _ value: Bool) {
        let changed = storage.withLock { s -> Bool in
            guard s[keyPath: flag] != value else { return false }
            s[keyPath: flag] = value
            return true
        }
        if changed { stateReport.run { [self] in report() } }
    }

    /// Reports each value that differs from its last report.
    @MainActor
    private func report() {
        let (selected, highlighted) = storage.withLock { s -> (Bool?, Bool?) in
            let selected = s.isSelected != s.reportedSelected ? s.isSelected : nil
            let highlighted = s.isHighlighted != s.reportedHighlighted ? s.isHighlighted : nil
            s.reportedSelected = s.isSelected
            s.reportedHighlighted = s.isHighlighted
            return (selected, highlighted)
        }
        if let selected { selectedStateDidChange(selected) }
        if let highlighted { highlightedStateDidChange(highlighted) }
    }
}
