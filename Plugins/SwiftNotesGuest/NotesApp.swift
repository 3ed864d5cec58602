// Swift Notes: a multi-window guest on the "apphost.scenes/1" extension through ApphostSDK's
// `Scenes`. Its primary window lists the notes; each note opens in an auxiliary editor window
// beside the list. Every window saves what it shows as its scene state, so that after the host
// restarts, or after the guest is terminated and launched again, every window comes back with
// its text (CONTRACT S8, S12). This is the pattern to copy: a window's state says what it shows.
// (To keep the sample short an editor's state carries its note's text; a real app keeps its
// documents in `host.dataDirectory` and puts only the note's title in the state, so that closing
// a window loses nothing.)
//
// User actions (`apphost ctl action <scene> <action> <payload>`):
//   on the list:    new <title>      adds a note
//                   open <title>     opens the note in an editor window (needs the action, S9),
//                                    or shows the one it is already open in
//                   fetch <title>    opens it once work that outlives the action is done (a
//                                    short wait on another thread stands in for a download),
//                                    with the action's activation token (ABI 1.2)
//                   windows          logs the windows it has, from the host's list (ABI 1.2)
//                   remind <title>   posts a notification about the note (N1)
//   on an editor:   type <text>      appends text to the note
//                   close            closes this editor window for good (ABI 1.2, S7)
//
// Actions (apphost.actions/1, `apphost ctl call org.apphost.samples.notes <action> <arguments>`):
//   add <title>       adds a note, as `new` does; returns nothing                  add(s)
//   count             how many notes there are                                     count()i
//   search <text>     the title of the first note whose title or text holds <text>,
//                     "" when none does                                            search(s)s
// The SDK derives each signature from its closure's types.
//
// Log lines (INFO), which the end-to-end tests match:
//   list: <title>, <title>            the list after a change
//   connected list: <title>, ...      a list window connected, with the titles it restored
//   editor <title>: <text>            an editor after a change
//   connected editor <title>: <text>  an editor window connected, with the text it restored
//   open <title> refused: <error>     WARNING: request_scene failed (no activation, ...)
//   fetched <title>                   fetch's later request went through
//   windows: <n>, <k> shown           the sessions the host lists, and how many are connected
//   close <title> refused: <error>    WARNING: close_session failed
//   reminded <title>                  the notification went to the host
//   remind <title> refused: <error>   WARNING: the host's limit (limit_reached, ABI 1.2) or other
//   show <title> refused: <error>     WARNING: activate_session failed
//   size <width>x<height> <class>     a window's new size
//   discarded <session>               a closed window's session is gone (S7)
//
// The delegates are isolated to GuestActor, the guest's main queue, where the host calls them one
// call at a time: their plain stored properties need no locks, and the compiler checks that
// nothing reaches them from another thread (see `fetch`).

import ApphostSDK
import Dispatch

@main
final class NotesApp: GuestApp {
    static let descriptor = GuestDescriptor(
        id: "org.apphost.samples.notes", name: "Swift Notes", version: "1.0.0", vendor: "apphost",
        summary: "A note list and editor windows, each restored with its text.",
        capabilities: [.multipleScenes])

    private var host: Apphost?
    /// Nil when the host does not offer the scenes extension: the guest then shows only its list.
    private(set) var scenes: Scenes?
    /// The notes' titles in the order they were added, and the text of each.
    var titles: [String] = []
    var texts: [String: String] = [:]
    /// The note each editor window's session shows, connected or not (S6), until it is closed.
    var editors: [SceneSession.ID: String] = [:]

    static let actions = [
        action("add", description: "Adds a note with the given title.") { (app, title: String) in
            // The list's state holds a title a line.
            guard !title.isEmpty, !title.contains("\n") else { return app.log("add needs a title", level: .warning) }
            app.add(title)
        },
        action("count", description: "How many notes there are.") { app in
            Int32(clamping: app.titles.count)
        },
        action("search", description: "The title of the first note holding the text, or \"\" when none does.") {
            (app, text: String) in
            app.titles.first { $0.contains(text) || (app.texts[$0] ?? "").contains(text) } ?? ""
        },
    ]

    required init() {}

    func didFinishLaunching(host: Apphost) throws {
        self.host = host
        scenes = host.scenes
    }

    func makeSceneDelegate(for session: SceneSession) -> SceneDelegate {
        session.role == .auxiliary ? EditorWindow(app: self) : ListWindow(app: self)
    }

    /// The user closed a window (S7): if it was an editor, its session will not come back.
    func didDiscardSession(id: SceneSession.ID) {
        editors[id] = nil
        log("discarded \(id)")
    }

    func log(_ line: String, level: LogLevel = .info) { host?.log(level: level, line) }

    /// Adds a note titled `title`, unless there is one; logs the list.
    func add(_ title: String) {
        if !titles.contains(title) { titles.append(title) }
        log("list: " + titles.joined(separator: ", "))
    }
}

/// The primary window: the list of notes. Its state is the titles, one a line.
final class ListWindow: SceneDelegate {
    unowned let app: NotesApp
    init(app: NotesApp) { self.app = app }

    func sceneWillConnect(_ scene: Scene, restorationData: [UInt8]?) {
        let saved = String(decoding: restorationData ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
        for title in saved where !app.titles.contains(title) { app.titles.append(title) }
        app.log("connected list: " + app.titles.joined(separator: ", "))
    }

    func scene(_ scene: Scene, perform action: String, payload: [UInt8]) {
        if action == "windows" { return windows() }
        let title = String(decoding: payload, as: UTF8.self)
        guard !title.isEmpty, !title.contains("\n") else { return app.log("\(action) needs a title", level: .warning) }
        switch action {
        case "new":
            app.add(title)
            save(scene)
        case "open":
            if let editor = app.editors.first(where: { $0.value == title })?.key {
                // Already open: show that window, which needs no activation (S9).
                do {
                    try app.scenes?.activateSession(editor)
                } catch {
                    app.log("show \(title) refused: \(error)", level: .warning)
                }
                return
            }
            // The new window's state names its note, and the text it has so far.
            let state = Array((title + "\n" + (app.texts[title] ?? "")).utf8)
            do {
                try app.scenes?.requestScene(from: scene, role: .auxiliary, style: .standard, state: state)
            } catch {
                app.log("open \(title) refused: \(error)", level: .warning)
            }
        case "fetch":
            fetch(title, from: scene)
        case "remind":
            // The host limits how many a guest posts in a while, and says so at once (N1).
            do {
                try app.scenes?.postNotification(title: "Reminder", body: title)
                app.log("reminded \(title)")
            } catch {
                app.log("remind \(title) refused: \(error)", level: .warning)
            }
        default:
            app.log("unknown action \(action)", level: .warning)
        }
    }

    func sceneDidEnterBackground(_ scene: Scene) { save(scene) }

    func sceneDidChangeSize(_ scene: Scene, to size: SceneSize) { app.log("size \(size)") }

    private func windows() {
        do {
            let sessions = try app.scenes?.sessions() ?? []
            app.log("windows: \(sessions.count), \(sessions.filter { $0.scene != nil }.count) shown")
        } catch {
            app.log("windows refused: \(error)", level: .warning)
        }
    }

    /// Opens `title` in an editor once slow work is done, off the main queue. Only this callback
    /// may spend the action's activation as it is; the work takes its token along, and the
    /// request presents it (S9). Everything the other thread needs is copied first: the app's
    /// stored properties are GuestActor's, and the compiler refuses them in that closure.
    private func fetch(_ title: String, from scene: Scene) {
        guard let scenes = app.scenes else { return }
        let host = scenes.host
        let activation: Activation
        do {
            activation = try scenes.activationToken()
        } catch {
            return app.log("open \(title) refused: \(error)", level: .warning)
        }
        let state = Array((title + "\n" + (app.texts[title] ?? "")).utf8)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) {
            do {
                try scenes.requestScene(with: activation, from: scene, role: .auxiliary, style: .standard, state: state)
                host.log("fetched \(title)")
            } catch {
                host.log(level: .warning, "open \(title) refused: \(error)")
            }
        }
    }

    private func save(_ scene: Scene) {
        try? scene.saveState(Array(app.titles.joined(separator: "\n").utf8))
    }
}

/// An editor window: one note. Its state is the note's title, a line break, then its text.
final class EditorWindow: SceneDelegate {
    unowned let app: NotesApp
    private var title = ""
    init(app: NotesApp) { self.app = app }

    func sceneWillConnect(_ scene: Scene, restorationData: [UInt8]?) {
        let state = String(decoding: restorationData ?? [], as: UTF8.self)
        let parts = state.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        title = parts.first.map(String.init) ?? ""
        let text = parts.count > 1 ? String(parts[1]) : ""
        // The saved text wins: it is what this window showed last.
        app.texts[title] = text
        app.editors[scene.sessionID] = title
        app.log("connected editor \(title): \(text)")
    }

    func scene(_ scene: Scene, perform action: String, payload: [UInt8]) {
        if action == "close" {
            // Gone for good: didDiscardSession(id:) forgets the editor once the host is done.
            do {
                try app.scenes?.closeSession(scene.sessionID)
            } catch {
                app.log("close \(title) refused: \(error)", level: .warning)
            }
            return
        }
        guard action == "type" else { return app.log("unknown action \(action)", level: .warning) }
        let text = (app.texts[title] ?? "") + String(decoding: payload, as: UTF8.self)
        app.texts[title] = text
        save(scene)
        app.log("editor \(title): \(text)")
    }

    func sceneDidEnterBackground(_ scene: Scene) { save(scene) }

    func sceneDidChangeSize(_ scene: Scene, to size: SceneSize) { app.log("size \(size)") }

    private func save(_ scene: Scene) {
        try? scene.saveState(Array((title + "\n" + (app.texts[title] ?? "")).utf8))
    }
}
