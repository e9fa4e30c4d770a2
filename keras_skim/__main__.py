import sys

from keras_skim.cli.main import main

sys.exit(main())
