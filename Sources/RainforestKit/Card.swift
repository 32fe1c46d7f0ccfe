/// One animal card: a photo, the animal's name, a few sentences about it and the photo credit.
struct Card: Sendable, Equatable, Hashable {
    /// The animal's common name, e.g. "Jaguar".
    var name: String
    /// Image file path relative to the Resources folder, e.g. "images/jaguar.webp".
    var image: String
    /// Two to four factual sentences.
    var description: String
    /// Photo credit, e.g. "Frieda Bredesen, CC0 1.0".
    var credit: String
}
