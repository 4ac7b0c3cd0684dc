SECRET_KEY = "bootstrap"
INSTALLED_APPS = []
