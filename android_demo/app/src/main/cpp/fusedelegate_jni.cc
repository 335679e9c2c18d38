// JNI bridge for org.fusedelegate.FuseDelegate: option strings in, the
// TfLiteDelegate* of the library's plugin entry point out, as a jlong.
#include <jni.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "kernels/cpu.h"
#include "frontends/tflite/tflite_abi.h"

#if defined(__ANDROID__)
#include <android/log.h>
#include <unistd.h>

#include <mutex>
#include <thread>
#endif

// Defined in tflite_delegate.cc. Declared with default visibility here too: a
// hidden declaration would make the linker hide the definitions as well.
extern "C" {
__attribute__((visibility("default"))) TfLiteDelegate* tflite_plugin_create_delegate(
    char** keys, char** values, size_t count, void (*report_error)(const char*));
__attribute__((visibility("default"))) void tflite_plugin_destroy_delegate(TfLiteDelegate* delegate);
}

namespace {

// What the library reported while creating a delegate on this thread.
thread_local std::string create_error;

void keep_create_error(const char* message) {
  if (!create_error.empty()) create_error += "; ";
  create_error += message ? message : "";
}

void throw_java(JNIEnv* env, const char* class_name, const std::string& message) {
  jclass cls = env->FindClass(class_name);
  if (cls) env->ThrowNew(cls, message.c_str());
}

// False (with a Java exception pending) if the arrays are unusable.
bool read_strings(JNIEnv* env, jobjectArray array, std::vector<std::string>* out) {
  const jsize n = env->GetArrayLength(array);
  for (jsize i = 0; i < n; ++i) {
    auto s = static_cast<jstring>(env->GetObjectArrayElement(array, i));
    if (!s) {
      throw_java(env, "java/lang/NullPointerException", "fusedelegate: null option key or value");
      return false;
    }
    const char* chars = env->GetStringUTFChars(s, nullptr);
    if (!chars) return false;  // OutOfMemoryError pending
    out->emplace_back(chars);
    env->ReleaseStringUTFChars(s, chars);
    env->DeleteLocalRef(s);
  }
  return true;
}

#if defined(__ANDROID__)
// The library logs to stderr, which Android discards: copy it to logcat, tag "fusedelegate".
void forward_stderr_to_logcat() {
  static std::once_flag once;
  std::call_once(once, [] {
    int fds[2];
    if (pipe(fds) != 0) return;
    if (dup2(fds[1], STDERR_FILENO) < 0) return;
    close(fds[1]);
    std::thread([fd = fds[0]] {
      std::string line;
      char buf[512];
      ssize_t n;
      while ((n = read(fd, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < n; ++i) {
          if (buf[i] != '\n') line += buf[i];
          if (buf[i] == '\n' || line.size() >= 1000) {
            __android_log_write(ANDROID_LOG_INFO, "fusedelegate", line.c_str());
            line.clear();
          }
        }
      }
    }).detach();
  });
}
#endif

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_org_fusedelegate_FuseDelegate_nativeCreate(JNIEnv* env, jclass, jobjectArray keys,
                                                                        jobjectArray values) {
  if (!keys || !values || env->GetArrayLength(keys) != env->GetArrayLength(values)) {
    throw_java(env, "java/lang/IllegalArgumentException", "fusedelegate: keys and values must pair up");
    return 0;
  }
  try {
#if defined(__ANDROID__)
    forward_stderr_to_logcat();
#endif
    std::vector<std::string> k, v;
    if (!read_strings(env, keys, &k) || !read_strings(env, values, &v)) return 0;
    std::vector<char*> key_ptrs, value_ptrs;
    for (size_t i = 0; i < k.size(); ++i) {
      key_ptrs.push_back(k[i].data());
      value_ptrs.push_back(v[i].data());
    }
    create_error.clear();
    TfLiteDelegate* delegate =
        tflite_plugin_create_delegate(key_ptrs.data(), value_ptrs.data(), k.size(), keep_create_error);
    if (!delegate) {
      throw_java(env, "java/lang/IllegalArgumentException",
                 create_error.empty() ? "fusedelegate: delegate creation failed" : create_error);
      return 0;
    }
    return static_cast<jlong>(reinterpret_cast<intptr_t>(delegate));
  } catch (const std::exception& e) {
    throw_java(env, "java/lang/RuntimeException", std::string("fusedelegate: ") + e.what());
    return 0;
  }
}

JNIEXPORT void JNICALL Java_org_fusedelegate_FuseDelegate_nativeDelete(JNIEnv*, jclass, jlong handle) {
  tflite_plugin_destroy_delegate(reinterpret_cast<TfLiteDelegate*>(static_cast<intptr_t>(handle)));
}

JNIEXPORT jobjectArray JNICALL Java_org_fusedelegate_FuseDelegate_nativeAvailableIsas(JNIEnv* env, jclass) {
  try {
    const std::vector<std::string> isas = fd::available_isas();
    jclass string_class = env->FindClass("java/lang/String");
    if (!string_class) return nullptr;
    jobjectArray out = env->NewObjectArray(static_cast<jsize>(isas.size()), string_class, nullptr);
    for (size_t i = 0; out && i < isas.size(); ++i) {
      jstring s = env->NewStringUTF(isas[i].c_str());
      if (!s) return nullptr;
      env->SetObjectArrayElement(out, static_cast<jsize>(i), s);
      env->DeleteLocalRef(s);
    }
    return out;
  } catch (const std::exception& e) {
    throw_java(env, "java/lang/RuntimeException", std::string("fusedelegate: ") + e.what());
    return nullptr;
  }
}

}  // extern "C"
