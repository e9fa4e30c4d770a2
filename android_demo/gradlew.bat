@rem Starts the Gradle wrapper (gradle\wrapper\gradle-wrapper.jar), which downloads the Gradle
@rem distribution named in gradle\wrapper\gradle-wrapper.properties, checks it against
@rem distributionSha256Sum, and runs it with this script's arguments: gradlew.bat assembleDebug
@rem
@rem Java: %JAVA_HOME%\bin\java.exe when JAVA_HOME is set, else java.exe on the PATH (JDK 17 or
@rem newer for the Android Gradle plugin). JVM options: DEFAULT_JVM_OPTS, JAVA_OPTS, GRADLE_OPTS.
@echo off
setlocal

set "APP_HOME=%~dp0"
if "%APP_HOME%"=="" set "APP_HOME=.\"
set "APP_BASE_NAME=%~n0"
set "WRAPPER_JAR=%APP_HOME%gradle\wrapper\gradle-wrapper.jar"
if not exist "%WRAPPER_JAR%" (
    echo gradlew: error: %WRAPPER_JAR% is missing ^(it is part of the repository^) 1>&2
    exit /b 1
)

if defined JAVA_HOME goto useJavaHome
set "JAVA_EXE=java.exe"
"%JAVA_EXE%" -version >NUL 2>&1
if %ERRORLEVEL% equ 0 goto run
echo gradlew: error: no java.exe on the PATH and JAVA_HOME is not set: install a JDK 17+ or set JAVA_HOME 1>&2
exit /b 1

:useJavaHome
set "JAVA_EXE=%JAVA_HOME:"=%\bin\java.exe"
if exist "%JAVA_EXE%" goto run
echo gradlew: error: JAVA_HOME is set to '%JAVA_HOME%', which has no bin\java.exe: point it at a JDK 17+ 1>&2
exit /b 1

:run
@rem The wrapper itself is small: the same heap limits as Gradle's own scripts use.
if not defined DEFAULT_JVM_OPTS set "DEFAULT_JVM_OPTS=-Xmx64m -Xms64m"
"%JAVA_EXE%" %DEFAULT_JVM_OPTS% %JAVA_OPTS% %GRADLE_OPTS% "-Dorg.gradle.appname=%APP_BASE_NAME%" -classpath "%WRAPPER_JAR%" org.gradle.wrapper.GradleWrapperMain %*
set EXIT_CODE=%ERRORLEVEL%
endlocal & exit /b %EXIT_CODE%
