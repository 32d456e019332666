// Fastify compiles the validator and serializer of every route when it starts, which costs start
// time and memory for routes a process may never serve. These factories hand Fastify its usual
// compilers (AJV, fast-json-stringify) wrapped so that each schema is compiled on its first use.
import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type ValidatorFactory = ReturnType<typeof AjvCompiler>
type SerializerFactory = ReturnType<typeof SerializerSelector>

interface LazyValidator {
  (data: unknown): unknown
  errors?: unknown
}

export function lazyValidatorFactory(): ValidatorFactory {
  const factory = AjvCompiler()
  return ((externalSchemas, options) => {
    const compile = factory(externalSchemas, options)
    return (route: Parameters<typeof compile>[0]) => {
      let compiled: ReturnType<typeof compile> | null = null
      const validate: LazyValidator = (data) => {
        compiled ??= compile(route)
        const result = compiled(data)
        validate.errors = (compiled as LazyValidator).errors
        return result
      }
      return validate as ReturnType<typeof compile>
    }
  }) as ValidatorFactory
}

export function lazySerializerFactory(): SerializerFactory {
  const factory = SerializerSelector()
  return ((externalSchemas, options) => {
    const compile = factory(externalSchemas, options)
    return (route: Parameters<typeof compile>[0]) => {
      let compiled: ReturnType<typeof compile> | null = null
      return ((data: unknown) => (compiled ??= compile(route))(data)) as ReturnType<typeof compile>
    }
  }) as SerializerFactory
}
