// LeakSanitizer reports the weak-reference side table of a live object as a leak once no weak
// reference to it is left (the reason for .ci/lsan.supp's first entry):
//
//   swiftc -sanitize=address -use-ld=lld .ci/lsan-weak-repro.swift -o /tmp/lsan-weak && /tmp/lsan-weak
//
// prints "Direct leak of 32 byte(s) ... formWeakReference() ... swift_weakAssign". `node` lives
// in a global until the process exits; its side table is then reachable only through the
// object's reference-count word, which holds the table's address shifted and tagged, and
// LeakSanitizer looks for plain pointers.
final class Node { var value = 1 }
final class Holder { weak var node: Node? }

let node = Node()
do {
    let holder = Holder()
    holder.node = node  // forms the side table (swift_weakAssign -> formWeakReference)
    print(holder.node!.value)
}                       // the holder and its weak reference are gone; the side table stays with `node`
print(node.value)
