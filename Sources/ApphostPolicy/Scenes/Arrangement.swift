import ApphostModel
import ApphostVocabulary

/// CONTRACT S10, S11, S4: which scenes the host shows and where, and the host alert. It owns the
/// layout and whether an alert is shown; nothing else writes them. The guests learn only their
/// sizes.
///
/// Every change goes through `arrange`, which takes the next layout with what it needs to know of
/// the guests (which scenes may be shown, which are in the foreground now) and returns the
/// scenes to move, in the order S2 to S5 call for (`ArrangementEffect`): scenes leave before the
/// scenes shown arrive (in layout order, each told its new size), except a guest's last
/// foreground scenes, which leave after its new ones arrive, so that a guest that switches
/// windows never passes through background. The other inputs (a style to show a scene in, an
/// operator's change, home) give the next layout, for `arrange`.
struct Arrangement {
    let policy: ScenePolicy
    /// The scenes shown and where (S11); every scene it names is in the foreground.
    private(set) var layout = Layout()
    /// S4: a host alert covers the foreground.
    private(set) var alertShown = false

    init(policy: ScenePolicy) {
        self.policy = policy
    }

    /// The guest filling the display, or else the first one shown.
    var foregroundID: String? { (layout.mainScenes.first ?? layout.visible.first)?.guest }

    // MARK: Arranging

    /// Makes `next` the layout, without the scenes that may not be shown (`showable`): scenes
    /// shown are in the foreground, active unless an alert or a prominent scene covers them (S4,
    /// S10); scenes no longer shown go to background (S3). `foreground` lists the scenes in the
    /// foreground now, a guest's together, guests in the host's order.
    mutating func arrange(
        _ next: Layout, showable: (SceneRef) -> Bool, foreground: [SceneRef]
    ) -> [ArrangementEffect] {
        let before = layout
        layout = next.keeping(showable)
        let sizes = layout.sizes(policy)
        let shownGuests = Set(layout.visible.map(\.guest))
        let shown = Set(layout.visible)
        var effects: [ArrangementEffect] = []
        func hide(_ keep: (String) -> Bool) {
            for scene in foreground where keep(scene.guest) && !shown.contains(scene) { effects.append(.hide(scene)) }
        }
        // A guest that keeps a scene in the foreground can lose the others first.
        let keepers = Set(foreground.filter { shown.contains($0) }.map(\.guest))
        hide { !shownGuests.contains($0) }
        hide { keepers.contains($0) }
        for scene in layout.visible {
            let covered = alertShown || (layout.prominent != nil && layout.prominent != scene)
            effects.append(.show(scene, size: sizes[scene], active: !covered))
        }
        hide { shownGuests.contains($0) && !keepers.contains($0) }
        if layout != before { effects.append(.record(.layout, message: layout.describe(Layout.shortName))) }
        return effects
    }

    // MARK: Next layouts

    /// Shows scene `index` of guest `id`'s `scenes` full screen, or else the primary scene it
    /// showed last (the latest to go to background), or else its first; nil when it has none.
    func foreground(of id: String, _ scenes: [SceneRecord], scene index: Int? = nil) -> Layout? {
        let primary = scenes.indices.filter { scenes[$0].role == .primary }
        guard
            let index = index ?? primary.max(by: { scenes[$0].backgroundSince < scenes[$1].backgroundSince })
                ?? scenes.indices.first
        else { return nil }
        return fullScreen(SceneRef(guest: id, session: scenes[index].sessionID))
    }

    /// Shows `scene` full screen; what was shown goes, except slide over and picture in picture.
    func fullScreen(_ scene: SceneRef) -> Layout {
        var next = layout.removing(scene)
        next.main = .fullScreen(scene)
        next.prominent = nil
        return next
    }

    /// The layout without `scene`.
    func without(_ scene: SceneRef) -> Layout { layout.removing(scene) }

    /// The layout without guest `id`'s scenes.
    func without(guest id: String) -> Layout { layout.keeping { $0.guest != id } }

    /// Every foreground scene goes (S3): the "home screen". Picture in picture stays up.
    func home() -> Layout {
        var next = layout
        next.main = .empty
        next.slideOver = []
        next.prominent = nil
        return next
    }

    /// S10: shows `scene` as `style` asks: prominent above everything; standard beside the scene
    /// `anchor` (a split with it, or in the other half of its split); automatic beside it when
    /// the display is wide enough for two regular halves, else full screen, as standard is when
    /// the scene beside is not in the main area. Nil when it is shown already and not asked
    /// prominent: nothing changes.
    func presenting(_ scene: SceneRef, style: PresentationStyle, beside anchor: SceneRef?) -> Layout? {
        guard !layout.visible.contains(scene) || style == .prominent else { return nil }
        var next = layout.removing(scene)
        let wide = policy.displayWidth / 2 >= policy.compactBelow
        switch style {
        case .prominent:
            next.prominent = scene
        case .standard, .automatic:
            let besideAllowed = style == .standard || wide
            switch next.main {
            case .fullScreen(let shown) where shown == anchor && besideAllowed:
                next.main = .split(shown, scene, ratio: 0.5)
            case .split(let first, _, let ratio) where first == anchor && besideAllowed:
                next.main = .split(first, scene, ratio: ratio)
            case .split(_, let second, let ratio) where second == anchor && besideAllowed:
                next.main = .split(scene, second, ratio: ratio)
            default:
                next.main = .fullScreen(scene)
            }
        }
        return next
    }

    /// S10: shows `session` of a guest as `style` asks, beside its scene whose connection is
    /// `beside` (`presenting`); nil when the guest has no such session, or nothing changes.
    func presenting(
        _ session: String, of guest: GuestSceneFacts, style: PresentationStyle, beside: SceneHandle?
    ) -> Layout? {
        guard guest.knows(session) else { return nil }
        let scene = SceneRef(guest: guest.id, session: session)
        return presenting(scene, style: style, beside: beside.flatMap(guest.scene))
    }

    /// The scenes an operator's `change` names, as the operator named them.
    static func sceneNames(in change: LayoutChange) -> [String] {
        switch change {
        case .fullScreen(let scene), .slideOver(let scene), .pictureInPicture(let scene): [scene]
        case .split(let first, let second, _): [first, second]
        case .ratio, .hideSlideOver, .closePictureInPicture: []
        }
    }

    /// S11: the scenes an operator's `change` names, found by `find` (as `GuestDirectory.scene(named:)`
    /// reads a name), or why the change cannot be: a ratio out of range, a scene not found, a
    /// split of a scene with itself.
    static func scenes(
        of change: LayoutChange, find: (String) -> Result<SceneRef, HostCommandError>
    ) -> Result<[SceneRef], HostCommandError> {
        do throws(HostCommandError) {
            try change.validate()
            let scenes = try sceneNames(in: change).map { name throws(HostCommandError) in try find(name).get() }
            guard scenes.count < 2 || scenes[0] != scenes[1] else {
                throw HostCommandError.invalid("a split needs two different scenes")
            }
            return .success(scenes)
        } catch {
            return .failure(error)
        }
    }

    /// S11: the operator's `change`, with the scenes it names; nil with why when it cannot apply.
    func applying(_ change: LayoutChange, to scenes: [SceneRef]) -> Result<Layout, HostCommandError> {
        var next = layout
        for scene in scenes { next = next.removing(scene) }
        switch change {
        case .fullScreen:
            next.main = .fullScreen(scenes[0])
        case .split(_, _, let ratio):
            next.main = .split(scenes[0], scenes[1], ratio: ratio)
        case .ratio(let ratio):
            guard case .split(let first, let second, _) = next.main else {
                return .failure(HostCommandError("no split view is shown"))
            }
            next.main = .split(first, second, ratio: ratio)
        case .slideOver:
            next.slideOver.append(scenes[0])
        case .hideSlideOver:
            next.slideOver = []
        case .pictureInPicture:
            next.pictureInPicture = scenes[0]
        case .closePictureInPicture:
            next.pictureInPicture = nil
        }
        return .success(next)
    }

    // MARK: The alert (S4)

    /// Shows or dismisses the host alert: the event to record, then `arrange` the same layout, so
    /// that the covered scenes resign active only, or become active again with no background trip.
    mutating func alert(_ shown: Bool) throws(HostCommandError) -> ArrangementEffect {
        guard shown != alertShown else {
            throw HostCommandError(shown ? "an alert is already shown" : "no alert is shown")
        }
        alertShown = shown
        return .record(.alert, name: shown ? "shown" : "dismissed")
    }
}
