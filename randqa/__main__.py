from randqa._entry import main

main()
