import DiaryKit

await Launcher.launch(NewCommand.self)
