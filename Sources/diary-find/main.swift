import DiaryKit

await Launcher.launch(FindCommand.self)
