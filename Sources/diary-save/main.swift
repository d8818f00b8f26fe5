import DiaryKit

await Launcher.launch(SaveCommand.self)
