#!/usr/bin/env bash
# What CI checks of the Android demo (android_demo/) without an Android SDK:
#   1. the app logic module (android_demo/core, plain Java) compiled with javac
#      and its JUnit tests; the app's XML and the resources, asset and
#      CMakeLists.txt its sources name;
#   2. the app's native library (app/src/main/cpp/CMakeLists.txt, the file the
#      NDK builds) cross-compiled for aarch64, linked with --no-undefined, its
#      exported symbols checked, and loaded under qemu-aarch64 to create
#      delegates (NEON) and refuse bad options;
#   3. the same CMakeLists.txt built for this host with g++ and with clang++ (the
#      NDK's compiler family); each build run as a TFLite delegate on the bundled
#      model if .venv has a runtime (scripts/setup.sh), its plan read by the core,
#      and the app's FuseDelegate.java run against it on the JVM (JNI, option
#      errors, the core's option checker against the library's).
# Installs its Debian packages if missing. Outputs go to android_demo/build/host.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
demo=$root/android_demo
out=$demo/build/host

packages=(openjdk-17-jdk-headless junit4 g++ g++-aarch64-linux-gnu qemu-user clang)
command -v cmake >/dev/null || packages+=(cmake)
source scripts/common.sh
ensure_packages "${packages[@]}"

# Debian's JDK 17 (installed above) unless JAVA_HOME names another JDK.
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/javac" ]; then
  JAVA_HOME=/usr/lib/jvm/java-17-openjdk-$(dpkg --print-architecture)
fi
export JAVA_HOME
javac=$JAVA_HOME/bin/javac
java=$JAVA_HOME/bin/java
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
jobs=$(nproc)

# Runs every *Test class under the folder $1 with classpath $2 (and JVM flags after).
run_junit() {
  local classes=$1 cp=$2
  shift 2
  local tests
  tests=$(cd "$classes" && find . -name '*Test.class' | sed 's|^\./||; s|\.class$||; s|/|.|g' | sort)
  "$java" "$@" -cp "$cp" org.junit.runner.JUnitCore $tests
}

# Checks that library $2 (nm tool $1) exports exactly the plugin and JNI entry
# points, and does not link the JVM (Android's runtime provides JNI).
check_jni_exports() {
  local nm=$1 lib=$2
  check_exports "$nm" "$lib" Java_org_fusedelegate_FuseDelegate_nativeAvailableIsas \
    Java_org_fusedelegate_FuseDelegate_nativeCreate Java_org_fusedelegate_FuseDelegate_nativeDelete \
    tflite_plugin_create_delegate tflite_plugin_destroy_delegate
  if readelf -d "$lib" | grep -q 'NEEDED.*libjvm'; then
    echo "android_test: $lib must not link libjvm"; return 1
  fi
}

build_jni() {  # build_jni DIR [cmake args...]
  local dir=$1
  shift
  cmake -S "$demo/app/src/main/cpp" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DJNI_INCLUDE_DIR="$JAVA_HOME/include" "$@" >/dev/null
  nice -n 10 cmake --build "$dir" -j "$jobs"
}

echo "== Android demo: core (app logic) JUnit tests"
rm -rf "$out/core" "$out/hosttest"
mkdir -p "$out/core" "$out/hosttest"
nice -n 10 "$javac" --release 8 -Xlint:all -Xlint:-options -Werror -encoding UTF-8 -cp "$junit" -d "$out/core" \
  $(find "$demo/core/src/main/java" "$demo/core/src/test/java" -name '*.java')
run_junit "$out/core" "$out/core:$junit"

echo "== Android demo: app sources (XML parses; resources, asset and CMakeLists.txt they name exist)"
python3 - "$demo" <<'EOF_PY'
import pathlib, re, sys
import xml.etree.ElementTree as ET
app = pathlib.Path(sys.argv[1]) / "app"
res = app / "src/main/res"
for f in [app / "src/main/AndroidManifest.xml", *res.rglob("*.xml")]:
    ET.parse(f)
layouts = " ".join(f.read_text() for f in (res / "layout").glob("*.xml"))
ids = set(re.findall(r'@\+id/(\w+)', layouts))
strings = {e.get("name") for f in (res / "values").glob("*.xml") for e in ET.parse(f).getroot().iter("string")}
java = " ".join(f.read_text() for f in (app / "src/main/java").rglob("*.java"))
xml = " ".join(f.read_text() for f in [app / "src/main/AndroidManifest.xml", *res.rglob("*.xml")])
problems = [f"R.id.{i}" for i in set(re.findall(r'R\.id\.(\w+)', java)) - ids]
problems += [f"R.layout.{l}" for l in set(re.findall(r'R\.layout\.(\w+)', java))
             if not (res / "layout" / f"{l}.xml").exists()]
problems += [f"string {n}" for n in set(re.findall(r'R\.string\.(\w+)', java + " ") +
                                         re.findall(r'@string/(\w+)', xml)) - strings]
gradle = (app / "build.gradle").read_text()
assets = app / re.search(r"assets\.srcDir '([^']+)'", gradle).group(1)
model = re.search(r'BUNDLED_MODEL = "([^"]+)"', java).group(1)
if not (assets / model).is_file():
    problems.append(f"asset {assets / model}")
if not (app / re.search(r"path '([^']+)'", gradle).group(1)).is_file():
    problems.append("CMakeLists.txt named in app/build.gradle")
if problems:
    sys.exit("android_test: missing: " + ", ".join(sorted(problems)))
print(f"android_test: app sources consistent ({len(ids)} ids, {len(strings)} strings, asset {model})")
EOF_PY

echo "== Android demo: JNI library for arm64-v8a (aarch64-linux-gnu-g++, the app's CMakeLists.txt)"
build_jni "$out/jni-aarch64" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake"
lib_arm=$out/jni-aarch64/libfusedelegate.so
readelf -h "$lib_arm" | grep -q 'Machine:.*AArch64' || { echo "android_test: $lib_arm is not aarch64"; exit 1; }
check_jni_exports aarch64-linux-gnu-nm "$lib_arm"
echo "android_test: $lib_arm: aarch64, --no-undefined, exports the plugin and JNI entry points only"
nice -n 10 aarch64-linux-gnu-g++ -std=c++17 -O1 -Wall -Wextra -o "$out/plugin_smoke-aarch64" \
  "$demo/hosttest/plugin_smoke.cc" -ldl
qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/plugin_smoke-aarch64" "$lib_arm" neon

python=$root/.venv/bin/python
have_tflite=0
[ -x "$python" ] && "$python" -c 'import fusedelegate, numpy' 2>/dev/null && have_tflite=1
[ $have_tflite = 1 ] || echo "android_test: no .venv with fusedelegate (scripts/setup.sh): skipping the TFLite runs"

# Runs the bundled model with library $1 as a TFLite delegate; its plan goes to $2.
run_model() {
  FUSEDELEGATE_LIBRARY=$1 "$python" - "$2" <<'EOF_PY'
import sys
import numpy as np
import fusedelegate
try:
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
except ImportError:
    from tflite_runtime.interpreter import Interpreter, OpResolverType

def run(delegates):
    it = Interpreter(model_path=fusedelegate.default_model_path(), experimental_delegates=delegates,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    rng = np.random.default_rng(0)
    for d in it.get_input_details():
        it.set_tensor(d["index"], rng.uniform(-1, 1, d["shape"]).astype(d["dtype"]))
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]

reference = run([])
outputs = run([fusedelegate.load(plan_file=sys.argv[1])])
worst = max(float(np.max(np.abs(y - r))) / max(float(np.max(np.abs(r))), 1e-30)
            for y, r in zip(outputs, reference))
print(f"android_test: bundled model through this build: max rel error vs built-in kernels {worst:.2e}")
assert worst <= 1e-5, worst
EOF_PY
}

nice -n 10 "$javac" --release 8 -Xlint:all -Xlint:-options -Werror -encoding UTF-8 -cp "$out/core:$junit" -d "$out/hosttest" \
  "$demo/app/src/main/java/org/fusedelegate/FuseDelegate.java" $(find "$demo/hosttest/java" -name '*.java')

# Host build $1 with the C++ compiler $2: exports, the model through TFLite, FuseDelegate.java on the JVM.
check_host_build() {
  local dir=$out/$1
  build_jni "$dir" -DCMAKE_CXX_COMPILER="$2"
  check_jni_exports nm "$dir/libfusedelegate.so"
  local plan=$dir/plan.json
  rm -f "$plan"
  if [ $have_tflite = 1 ]; then run_model "$dir/libfusedelegate.so" "$plan"; fi
  run_junit "$out/hosttest" "$out/hosttest:$out/core:$junit" \
    -Djava.library.path="$dir" -Dfusedelegate.planFile="$plan"
}

echo "== Android demo: JNI library for this host (g++), the model through TFLite, FuseDelegate.java on the JVM"
check_host_build jni-host g++
echo "== Android demo: the same with clang++ (the NDK's compiler family: its contraction and warning rules)"
check_host_build jni-host-clang clang++

echo "android_test: all passed"
