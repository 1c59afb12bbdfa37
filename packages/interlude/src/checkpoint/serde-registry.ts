import { SerializationError } from "../errors/storage.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyClass = abstract new (...args: any[]) => unknown;

export interface SerializableOptions<T = unknown> {
  /** What to store for an instance; defaults to its own enumerable fields. May hold any storable value. */
  toJSON?: (instance: T) => unknown;
  /** Rebuilds an instance from what `toJSON` returned; defaults to the fields on a new object with the class's prototype (the constructor does not run). */
  fromJSON?: (data: any) => T;
}

export interface Registration {
  name: string;
  Class: AnyClass;
  toJSON?: (instance: any) => unknown;
  fromJSON?: (data: any) => unknown;
}

const byClass = new Map<unknown, Registration>();
const byName = new Map<string, Registration>();

/**
 * Lets instances of `Class` be stored in state, metadata and writes. `name` is what is
 * stored, so it must stay the same across releases and processes (the class may be renamed).
 */
export function registerSerializable<T>(name: string, Class: AnyClass, options: SerializableOptions<T> = {}): void {
  const existing = byName.get(name);
  if (existing && existing.Class !== Class) {
    throw new SerializationError(`Another class is already registered as "${name}"; pick a unique name.`);
  }
  const registration: Registration = { name, Class, toJSON: options.toJSON, fromJSON: options.fromJSON };
  byClass.set(Class, registration);
  byName.set(name, registration);
}

/** The registration of the value's own class (not a parent class: a subclass stores more). */
export function classOf(value: object): Registration | undefined {
  if (byClass.size === 0) return undefined;
  return byClass.get(Object.getPrototypeOf(value)?.constructor);
}

export function registeredByName(name: string): Registration | undefined {
  return byName.get(name);
}
